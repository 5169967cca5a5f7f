#!/usr/bin/env python3
"""moto's server, set up for Punctual: `punctual local --dynamodb-endpoint URL --sfn-endpoint URL` attaches to it.

Serves DynamoDB, DynamoDB Streams and Step Functions (with EventBridge and SQS) on one loopback port; its Step
Functions executes state machines with LocalStack's interpreter, whose own service calls go back to this port.

Started this way rather than with `moto_server` because moto 5.2.1 has two faults that stop it from running
Punctual faithfully; each is patched here, in this process only, and printed at start (--unpatched keeps moto as
it is, to see them):
  1. A second StartExecution of a state machine that has run fails with HTTP 500 ("cannot pickle
     '_thread.RLock' object"): getmoto/moto#10077, fixed upstream by getmoto/moto#10093 (after 5.2.1). The patch
     is that fix: the snapshot of the state machine a new execution takes leaves out the running executions.
  2. A Wait with Timestamp or TimestampPath waits the whole seconds left, truncated (int), measured from the
     machine's local time: it wakes up to a second early in UTC, and off by the UTC offset elsewhere. AWS waits
     until the timestamp (its milliseconds truncated, per the Wait state's documentation), and a wait that
     ends early would delete an item before its TTL. The patch waits until the timestamp, read as UTC.
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
    """getmoto/moto#10093: the new execution's snapshot of its state machine leaves out the executions."""
    import copy
    from moto.stepfunctions.parser import models

    class SnapshotWithoutExecutions:
        @staticmethod
        def deepcopy(value, memo=None):
            memo = {} if memo is None else memo
            executions = getattr(value, "executions", None)
            if isinstance(executions, list):
                memo[id(executions)] = []
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one (default)")
    parser.add_argument("--unpatched", action="store_true", help="run moto as it is, faults included")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="stop when standard input closes")
    args = parser.parse_args()

    import moto
    from moto.server import ThreadedMotoServer

    patches = [] if args.unpatched else [patch_start_execution_snapshot(), patch_wait_until_timestamp()]
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
