#!/usr/bin/env python3
"""moto's server, set up for Punctual: `punctual local --dynamodb-endpoint URL --sfn-endpoint URL` attaches to it.

Serves DynamoDB, DynamoDB Streams and Step Functions (with EventBridge and SQS) on one loopback port; its Step
Functions executes state machines with LocalStack's interpreter, whose own service calls go back to this port.

Started this way rather than with `moto_server` because moto 5.2.1 has six faults that stop it from running
Punctual faithfully; each is patched here, in this process only, and printed at start (--unpatched keeps moto as
it is, to see them):
  1. A second StartExecution of a state machine that has run fails with HTTP 500 ("cannot pickle
     '_thread.RLock' object"): getmoto/moto#10077, fixed upstream by getmoto/moto#10093 (after 5.2.1). The patch
     is that fix, and one step further: the snapshot of the state machine a new execution takes leaves out its
     executions, and shares (rather than copies) the backend the state machine points to, whose other state
     machines' running executions hold locks too (and whose copy made every StartExecution slower).
  2. A Wait with Timestamp or TimestampPath waits the whole seconds left, truncated (int), measured from the
     machine's local time: it wakes up to a second early in UTC, and off by the UTC offset elsewhere. AWS waits
     until the timestamp (its milliseconds truncated, per the Wait state's documentation), and a wait that
     ends early would delete an item before its TTL. The patch waits until the timestamp, read as UTC.
  3. The interpreter makes a new boto3 client for every Task, on each execution's own thread, from boto3's
     default session, which is not thread-safe (boto/boto3#1592, boto/botocore#2991): in one run of 300
     executions, 27 DynamoDB Tasks sent a request with parameters missing (moto answers HTTP 500, KeyError
     ':ttl' or 'Key'). The patch makes one client per service, once, and shares it: a boto3 client is
     thread-safe once made.
  4. A DynamoDB Task that runs past its TimeoutSeconds fails with DynamoDB.AmazonDynamoDBException and an empty
     cause: the DynamoDB integration's own error mapping overrides the one that gives every other Task
     States.Timeout, the error AWS documents for a Task that runs too long. No Retry names the former, so a
     slow delete failed the execution (and the item was never deleted) where AWS retries it. The patch gives
     States.Timeout.
  5. DynamoDB Streams: a record's sequence number is the shard's length when it is added, read and appended in
     two steps, so two writes at once (moto serves each request on its own thread) can get the same number.
     An AFTER_SEQUENCE_NUMBER iterator, or the NextShardIterator after it, then returns the second of them
     again at every read, for ever: a poller hands it to its function at every poll. AWS documents sequence
     numbers as unique within a shard. The patch numbers and appends records one at a time.
  6. Each execution parses its definition on its own thread, and the parser's Preprocessor keeps its stack of
     query-language scopes in a class attribute, one list for every parse: two parses at once push and pop the
     same list, and one fails with IndexError in its thread (`_get_current_query_language`), so its execution
     never runs its states and its item is never deleted (1 of 300 beside a full suite and two CPU hogs). The
     patch gives each parse its own list.
With --mock-config FILE (or SFN_MOCK_CONFIG=FILE, the variable AWS Step Functions Local reads), StartExecution on
`<state machine ARN>#<test case>` answers that test case's mocked Task states from the file: moto carries LocalStack's
code for it, but its loader returns nothing and its StartExecution never looks for the test case.
And one change for speed alone: the interpreter parses every JSONPath at every use, a few milliseconds each
with jsonpath-ng, several per state; at ten expiries a second that alone kept moto's one core busy, the
deletes queued, and lag grew to a minute. Parsed expressions are cached (they are not changed by use).
The differences left are listed in docs/local-runtime.md.

Usage: python3 tools/moto/punctual-moto.py [--port N]   (0, the default, picks a free port)
Prints "READY <endpoint>" once the server answers and executes state machines; stops on Ctrl-C or SIGTERM
(and with --exit-on-stdin-eof when its standard input closes, so a test's server dies with the test).
"""
import argparse
import datetime
import json
import logging
import os
import signal
import sys
import threading
import time
import urllib.request


def patch_start_execution_snapshot():
    """getmoto/moto#10093, extended: the new execution's snapshot of its state machine leaves out the executions
    and shares the backend."""
    import copy
    from moto.stepfunctions.parser import models

    class SnapshotWithoutExecutions:
        @staticmethod
        def deepcopy(value, memo=None):
            memo = {} if memo is None else memo
            executions = getattr(value, "executions", None)
            if isinstance(executions, list):
                memo[id(executions)] = []
            backend = getattr(value, "backend", None)
            if backend is not None:
                memo[id(backend)] = backend
            return copy.deepcopy(value, memo)

    models.copy = SnapshotWithoutExecutions
    return "getmoto/moto#10093 (second StartExecution of a state machine failed with HTTP 500)"


def patch_wait_until_timestamp():
    """A Wait on a timestamp waits until that instant (UTC), not the whole seconds left measured in local time."""
    from moto.stepfunctions.parser.asl.component.state.wait.wait_function import timestamp, wait_function

    def seconds_until(self, env):
        self.string.eval(env=env)
        text = env.stack.pop()
        instant = self._from_timestamp_string(timestamp=text)
        if instant is None:
            raise timestamp.FailureEventException(self._create_failure_event(env, text))
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        return max(0.0, (instant - now).total_seconds())

    def wait_interval(self, env, wait_seconds):
        deadline = time.monotonic() + wait_seconds
        while env.is_running():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            # Set and cleared on every change of the program's state: an unrelated change wakes the wait
            # early; a stop ends the loop through is_running().
            env.program_state_event.wait(remaining)

    timestamp.Timestamp._get_wait_seconds = seconds_until
    wait_function.WaitFunction._wait_interval = wait_interval
    return "Wait Timestamp/TimestampPath waits until the instant, in UTC (moto woke up to 1 s early)"


def patch_task_clients_shared():
    """One boto3 client per service and Region for every Task, made once under a lock, instead of one per Task."""
    import importlib
    from moto.stepfunctions.parser.asl.utils import boto_client

    make = boto_client.boto_client_for
    clients = {}
    making = threading.Lock()

    def shared_client(region, service, state_credentials=None):
        # moto's clients sign with fixed dummy keys whatever the credentials: region and service are the key.
        with making:
            if (region, service) not in clients:
                clients[(region, service)] = make(region=region, service=service, state_credentials=state_credentials)
            return clients[(region, service)]

    prefix = "moto.stepfunctions.parser.asl.component.state.exec."
    for name in ["state_task.lambda_eval_utils", "state_task.service.state_task_service_dynamodb",
                 "state_task.service.state_task_service_sfn", "state_task.service.state_task_service_aws_sdk",
                 "state_task.service.state_task_service_events", "state_task.service.state_task_service_sqs",
                 "state_task.service.state_task_service_sns"]:
        module = importlib.import_module(prefix + name)
        if hasattr(module, "boto_client_for"):
            module.boto_client_for = shared_client
    boto_client.boto_client_for = shared_client
    return "Task clients shared, one per service (boto/boto3#1592: requests lost parameters under concurrency)"


def patch_dynamodb_task_timeout():
    """A DynamoDB Task that runs past its TimeoutSeconds fails with States.Timeout, as every other Task does."""
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import state_task_service_dynamodb

    task = state_task_service_dynamodb.StateTaskServiceDynamoDB
    from_error = task._from_error

    def timeout_as_states_timeout(self, env, ex):
        if isinstance(ex, TimeoutError):
            return self._get_timed_out_failure_event(env)
        return from_error(self, env, ex)

    task._from_error = timeout_as_states_timeout
    return "a DynamoDB Task past its TimeoutSeconds fails with States.Timeout (moto: DynamoDB.AmazonDynamoDBException)"


def patch_json_path_parsed_once():
    """Each JSONPath parsed once: parsing one takes milliseconds, and every state of every execution parses several."""
    import functools
    from moto.stepfunctions.parser.asl.utils import json_path

    json_path.parse = functools.lru_cache(maxsize=4096)(json_path.parse)
    return "JSONPaths parsed once, not at every use (ten deletes a second saturated moto's one core)"


def patch_parser_scopes_per_parse():
    """Each parse keeps its own stack of query-language scopes, where moto's Preprocessor keeps one for all."""
    from moto.stepfunctions.parser.asl.parse.preprocessor import Preprocessor

    init = Preprocessor.__init__

    def own_scopes(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._query_language_per_scope = []

    Preprocessor.__init__ = own_scopes
    return "query-language scopes kept per parse (parses at once shared one list: IndexError, an execution never ran)"


def patch_stream_sequence_numbers_unique():
    """A stream record's sequence number is taken and its record appended in one step, so no two share one."""
    from moto.dynamodb.models import table

    add = table.StreamShard.add
    adding = threading.Lock()

    def add_one_at_a_time(self, old, new):
        with adding:
            return add(self, old, new)

    table.StreamShard.add = add_one_at_a_time
    return "stream records numbered one at a time (concurrent writes shared a sequence number; readers re-read one)"


class _Fields:
    """A mock configuration's JSON object with its fields as attributes: the shape moto's own reader of test cases
    (moto.stepfunctions.parser.mocking.mock_config, LocalStack's) expects of the file's parsed model."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def _raw_mock_config(document):
    """The parsed MockConfigFile.json in the shape moto's _mock_test_case_from_raw reads."""
    class Returned:
        def __init__(self, value):
            self.value = value

        def model_dump(self):
            return json.loads(json.dumps(self.value))

    def response(body):
        if "Return" in body:
            return _Fields(Return=Returned(body["Return"]), Throw=None)
        thrown = body["Throw"]
        return _Fields(Return=None, Throw=_Fields(Error=thrown["Error"], Cause=thrown["Cause"]))

    machines = {name: _Fields(TestCases={case: _Fields(root=states) for case, states in machine["TestCases"].items()})
                for name, machine in document["StateMachines"].items()}
    responses = {name: {key: response(body) for key, body in invocations.items()}
                 for name, invocations in document["MockedResponses"].items()}
    return _Fields(StateMachines=machines, MockedResponses=responses)


def patch_mock_config(path):
    """StartExecution on `<state machine ARN>#<test case>` runs that test case of AWS Step Functions Local's mock
    configuration file. moto 5.2.1 carries LocalStack's code that answers mocked Tasks, but its loader of the file
    returns nothing (the reading of SFN_MOCK_CONFIG was left out) and its backend's StartExecution never looks for
    a test case: this reads the file once and hands the named test case to the new execution."""
    from moto.stepfunctions.exceptions import InvalidName
    from moto.stepfunctions.parser import models
    from moto.stepfunctions.parser.mocking import mock_config

    with open(path, encoding="utf-8") as file:
        raw = _raw_mock_config(json.load(file))
    starting = threading.local()

    class ExecutionWithTestCase(models.Execution):
        # moto's Execution takes no test case, but the worker it makes does (and its Environment answers from it).
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.test_case = getattr(starting, "test_case", None)

        def _get_start_execution_worker(self):
            worker = super()._get_start_execution_worker()
            worker._mock_test_case = self.test_case
            return worker

    start = models.StepFunctionsParserBackend.start_execution

    def start_with_test_case(self, state_machine_arn, name=None, execution_input=None, trace_header=None):
        arn, _, test_case_name = state_machine_arn.partition("#")
        starting.test_case = None
        if test_case_name:
            machine = self.describe_state_machine(arn)
            try:
                starting.test_case = mock_config._mock_test_case_from_raw(machine.name, test_case_name, raw)
            except RuntimeError as missing:
                raise InvalidName(str(missing))
        try:
            return start(self, arn, name, execution_input, trace_header)
        finally:
            starting.test_case = None

    models.Execution = ExecutionWithTestCase
    models.StepFunctionsParserBackend.start_execution = start_with_test_case
    return f"mock configuration {os.path.basename(path)}: StartExecution on <ARN>#<test case> (moto never read the file)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one (default)")
    parser.add_argument("--unpatched", action="store_true", help="run moto as it is, faults included")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="stop when standard input closes")
    parser.add_argument("--mock-config", default=os.environ.get("SFN_MOCK_CONFIG"),
                        help="AWS Step Functions Local's MockConfigFile.json (default: $SFN_MOCK_CONFIG, as AWS's)")
    args = parser.parse_args()

    import moto
    from moto.server import ThreadedMotoServer

    patches = [] if args.unpatched else [patch_start_execution_snapshot(), patch_wait_until_timestamp(),
                                          patch_task_clients_shared(),
                                          patch_dynamodb_task_timeout(),
                                          patch_json_path_parsed_once(),
                                          patch_stream_sequence_numbers_unique(),
                                          patch_parser_scopes_per_parse()]
    if args.mock_config:
        patches.append(patch_mock_config(args.mock_config))
    # One line per request is noise; a failed request's traceback is logged at ERROR and still shows.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address=args.host, port=args.port, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    # The interpreter's own service calls (DynamoDB, Step Functions) go to localhost:$MOTO_PORT, read per call.
    os.environ["MOTO_PORT"] = str(port)
    endpoint = f"http://{host}:{port}"
    request = urllib.request.Request(f"{endpoint}/moto-api/config", method="POST",
                                     data=json.dumps({"stepfunctions": {"execute_state_machine": True}}).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()
    print(f"moto {moto.__version__} on {endpoint}: DynamoDB, DynamoDB Streams, Step Functions (executing), "
          f"EventBridge, SQS", flush=True)
    for patch in patches:
        print(f"patched: {patch}", flush=True)
    if args.unpatched:
        print("unpatched: moto's faults are in (see this file's docstring)", flush=True)
    print(f"READY {endpoint}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.exit_on_stdin_eof:
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    while not stop.wait(1):
        pass
    server.stop()


if __name__ == "__main__":
    main()
