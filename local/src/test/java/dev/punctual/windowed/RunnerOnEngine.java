package dev.punctual.windowed;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.expiry.Executions;
import dev.punctual.functions.BucketFunction;
import dev.punctual.functions.ExpirySettings;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.ParsedDefinition;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.RunObserver;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stepfunctions.tasks.LambdaTaskResource;
import dev.punctual.local.stream.LocalLambdaContext;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.time.Clock;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A bucket's runner as production runs it, with time skipped: the engine's interpreter runs
 * {@code run-bucket.asl.json} itself (Step, MoreToDo, WaitForNextStep), its Step task invokes
 * {@link BucketFunction} through the engine's Lambda integration, the function hands each step to the
 * test's {@link BucketWorker} over windowed mode's in-memory index, table and executions, and every Wait,
 * retry back-off and task time-out of the run is an action on the test's manual clock. So the loop a
 * runner goes through is the ASL's own and no copy of it, as Temporal's test environment runs a
 * workflow's real code with its timers skipped.
 *
 * <p>Everything runs on the caller's thread: starting a run takes its first step at once, and the run
 * goes on only as the clock is moved, by {@link Run#finish} or by the test. A run started inside another
 * party's call (a duplicate runner begun at a call of the first) runs there, as a nested run of the clock.
 */
final class RunnerOnEngine {

    /** Clock moves a run may take: a minute's runner takes at most two per due second, and retries. */
    private static final int MOST_MOVES = 10_000;
    private static final String RUNNER_STATE_MACHINE = "punctual-run-bucket";
    /** The bucket executions' state machine, which the function names in the successors it starts. */
    private static final String EXPIRE_BUCKET_ARN = "arn:aws:states:" + LocalAccount.REGION + ":" + LocalAccount.ACCOUNT_ID
            + ":stateMachine:punctual-expire-bucket";
    private static final TypeReference<Map<String, Object>> PAYLOAD = new TypeReference<>() { };
    /** Payloads to and from the function, converted as the local runtime's Lambda host converts them. */
    private static final ObjectMapper LAMBDA_JSON = new ObjectMapper();

    private final WindowedFakes.ManualClock clock;
    private final Executions executions;
    private final LambdaFunctions functions = new LambdaFunctions();
    private final Interpreter interpreter;
    /** The runner's definition per worker, each rendered with the ARN of a bucket function over that worker. */
    private final Map<BucketWorker, ParsedDefinition> definitions = new IdentityHashMap<>();
    /** What a function's worker asserted inside a step: the engine would report it only as the step's error. */
    private final List<AssertionError> failedInSteps = new CopyOnWriteArrayList<>();

    /** Runners on {@code clock}, whose bucket function starts child buckets and successors on {@code executions}. */
    RunnerOnEngine(WindowedFakes.ManualClock clock, Executions executions) {
        this.clock = clock;
        this.executions = executions;
        // Seeded: the Step's full-jitter retry back-off is the same on every run of a test.
        this.interpreter = new Interpreter(new OnClock(clock), List.of(new LambdaTaskResource(functions)), Runnable::run,
                new Random(7), LocalAccount.REGION);
    }

    /** Starts the runner of {@code input} and moves the clock until it ends; returns how it ended. */
    RunOutcome run(BucketWorker worker, BucketInput input) {
        return start(worker, input).finish();
    }

    /**
     * Starts the runner of {@code input} now, its steps taken by {@code worker}: its first step is taken
     * before this returns, and the run then waits on the clock.
     */
    Run start(BucketWorker worker, BucketInput input) {
        String name = input.executionName();
        ContextObject context = new ContextObject(
                "arn:aws:states:" + LocalAccount.REGION + ":" + LocalAccount.ACCOUNT_ID + ":express:" + RUNNER_STATE_MACHINE
                        + ":" + name + ":run",
                name, clock.instant(), "arn:aws:iam::" + LocalAccount.ACCOUNT_ID + ":role/punctual-run-bucket",
                "arn:aws:states:" + LocalAccount.REGION + ":" + LocalAccount.ACCOUNT_ID + ":stateMachine:" + RUNNER_STATE_MACHINE,
                RUNNER_STATE_MACHINE);
        Run run = new Run(input);
        interpreter.start(definitionFor(worker), context, Json.parse(input.toJson()), run);
        return run;
    }

    private synchronized ParsedDefinition definitionFor(BucketWorker worker) {
        return definitions.computeIfAbsent(worker, w -> {
            String functionName = "punctual-bucket-" + (definitions.size() + 1);
            BucketFunction function = new BucketFunction(FunctionParts.builder(ExpirySettings.forBucketFunction(Map.of(
                            StreamWiring.ENV_STATE_MACHINE_ARN, EXPIRE_BUCKET_ARN,
                            StreamWiring.ENV_SCHEDULE_TABLE, "punctual-schedule")))
                    .executions(executions).clock(clock).sleeper(clock).build(), w);
            functions.register(functionName, payload -> invoke(function, functionName, payload));
            return interpreter.parse(StateMachineDefinitions.runBucket(LocalAccount.PARTITION,
                    LocalDefaults.functionArn(functionName)));
        });
    }

    /** One invocation, its payload converted as Lambda's Java runtime converts it. */
    private JsonNode invoke(BucketFunction function, String functionName, JsonNode payload) {
        try {
            Map<String, Object> event = LAMBDA_JSON.convertValue(payload, PAYLOAD);
            return LAMBDA_JSON.valueToTree(function.handleRequest(event, new LocalLambdaContext(functionName,
                    StreamWiring.BUCKET_FUNCTION_MEMORY_MB, LocalAccount.REGION, clock)));
        } catch (AssertionError e) {
            failedInSteps.add(e);
            throw e;
        }
    }

    /** One run of the runner: what it did, and how it ended once it has. */
    final class Run implements RunObserver {

        /** A state the run entered, and when. */
        record Entered(String state, Instant at) {
        }

        private final BucketInput input;
        private final List<Entered> entered = new CopyOnWriteArrayList<>();
        private final AtomicReference<RunOutcome> outcome = new AtomicReference<>();
        private final AtomicReference<JsonNode> waitingWith = new AtomicReference<>();
        private long events = 1;

        private Run(BucketInput input) {
            this.input = input;
        }

        @Override
        public long onEvent(String type, ObjectNode details, Instant timestamp) {
            if (type.endsWith("StateEntered")) {
                entered.add(new Entered(details.path("name").asText(), timestamp));
                if (type.equals("WaitStateEntered")) {
                    waitingWith.set(Json.parse(details.path("input").asText()));
                }
            }
            // This runner keeps no history; the ids only number the causes of errors.
            return ++events;
        }

        @Override
        public void onCheckpoint(Checkpoint checkpoint) {
            // An Express runner keeps no checkpoints: a run that stops is run again from its start.
        }

        @Override
        public void onCompleted(RunOutcome result) {
            outcome.set(result);
        }

        /** How the run ended, or {@code null} while it runs. */
        RunOutcome outcome() {
            return outcome.get();
        }

        /** The states the run entered so far, in order, with the clock's instant at each. */
        List<Entered> entered() {
            return List.copyOf(entered);
        }

        /** The runner's state at its latest Wait: what its next step is, and when it takes it. */
        RunnerState waitingWith() {
            JsonNode state = waitingWith.get();
            if (state == null) {
                throw new AssertionError("the runner of " + input.executionName() + " has not waited yet: " + entered);
            }
            return RunnerState.fromPayload(LAMBDA_JSON.convertValue(state.path(BucketWorkflow.RUNNER), PAYLOAD));
        }

        /**
         * Moves the clock from one pending action to the next (this run's and any other party's) until the
         * run ends; returns how it ended. An assertion a step made fails here.
         */
        RunOutcome finish() {
            for (int moves = 0; outcome.get() == null; moves++) {
                Instant next = clock.nextAction();
                if (next == null || moves == MOST_MOVES) {
                    throw new AssertionError("the runner of " + input.executionName() + " does not end: "
                            + (next == null ? "nothing is pending on the clock" : moves + " moves") + "; entered " + entered);
                }
                clock.set(next);
            }
            if (!failedInSteps.isEmpty()) {
                throw failedInSteps.get(0);
            }
            return outcome.get();
        }
    }

    /** The engine's timer on the test's manual clock: an action runs when the test, or a run, moves the clock past it. */
    private static final class OnClock implements Timer {

        private final WindowedFakes.ManualClock clock;

        OnClock(WindowedFakes.ManualClock clock) {
            this.clock = clock;
        }

        @Override
        public Clock clock() {
            return clock;
        }

        @Override
        public Cancellable schedule(Instant at, Runnable action) {
            WindowedFakes.ManualClock.Timed timed = clock.at(at, action);
            return () -> clock.withdraw(timed);
        }
    }
}
