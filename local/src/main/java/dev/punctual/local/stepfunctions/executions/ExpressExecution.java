package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.StatesDataLimitExceededError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.errors.StatesTimeoutError;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.Run;
import dev.punctual.local.stepfunctions.asl.run.RunObserver;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.StepFunctionsLimits;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * One execution of an Express state machine: run by the same interpreter as a Standard one, but kept
 * nowhere but here while it runs, as AWS keeps none. Nothing is journaled (a crash loses it), no
 * history is kept (its state machine's {@link ExecutionLogging} decides which events reach the
 * {@link ExecutionLog}), its checkpoints are ignored, it closes {@code TIMED_OUT} with
 * {@code States.Timeout} after {@link WorkflowType#EXPRESS}'s five minutes, and closing it bills it
 * ({@link ExpressExecutions#closed}). Only the engine and a {@code .sync} parent hear that it closed.
 */
final class ExpressExecution implements RunObserver {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    final StateMachine stateMachine;
    final StateMachineRevision revision;
    final String name;
    final String arn;
    final long startMillis;
    final byte[] input;
    private final ExpressExecutions owner;
    private final CompletableFuture<ExecutionDescription> closed = new CompletableFuture<>();
    /** What closing it billed; set before {@link #closed} completes. */
    private volatile ExpressExecutions.Billing billing;
    /** Its mocked Task states' answers, when it was started with a test case. */
    private final TaskMocks mocks;

    private ExecutionStatus status = ExecutionStatus.RUNNING;
    private long stopMillis;
    private String output;
    private String error;
    private String cause;
    private Run run;
    private Timer.Cancellable deadline;
    private int eventId;
    private long largestPayloadBytes;
    private String currentState = "";
    private String currentInput = "";

    ExpressExecution(ExpressExecutions owner, StateMachine stateMachine, String name, String arn, long startMillis,
            byte[] input, TaskMocks mocks) {
        this.mocks = mocks;
        this.owner = owner;
        this.stateMachine = stateMachine;
        this.revision = stateMachine.current;
        this.name = name;
        this.arn = arn;
        this.startMillis = startMillis;
        this.input = input;
        this.largestPayloadBytes = input.length;
    }

    private ExecutionHost host() {
        return stateMachine.host;
    }

    /** Completes with the execution's description once it has closed, however it closed. */
    CompletableFuture<ExecutionDescription> closed() {
        return closed;
    }

    /** Completes once it has closed, with what StartSyncExecution answers: the description and the billing. */
    CompletableFuture<SyncExecutionResult> synchronousResult() {
        return closed.thenApply(description -> new SyncExecutionResult(description, billing.billedMillis(),
                billing.memoryBytes() / (1024 * 1024)));
    }

    /** Starts the run and the five-minute limit. */
    void launch() {
        ObjectNode started = JsonNodeFactory.instance.objectNode();
        started.put("input", new String(input, StandardCharsets.UTF_8));
        started.put("roleArn", revision.roleArn());
        log("ExecutionStarted", started, startMillis);
        Instant limit = Instant.ofEpochMilli(startMillis).plus(WorkflowType.EXPRESS.maxDuration());
        Timer.Cancellable timer = host().timer.schedule(limit, () -> end(ExecutionStatus.TIMED_OUT, null,
                StatesTimeoutError.NAME, "The execution ran longer than an Express workflow may: "
                        + WorkflowType.EXPRESS.maxDuration().toMinutes() + " minutes."));
        ContextObject context = new ContextObject(arn, name, Instant.ofEpochMilli(startMillis), revision.roleArn(),
                stateMachine.arn, stateMachine.name).asExpress();
        Run launched;
        try {
            launched = host().interpreter.start(revision.parsed(), context, MAPPER.readTree(input), this, mocks);
        } catch (IOException | RuntimeException ex) {
            timer.cancel();
            end(ExecutionStatus.FAILED, null, StatesRuntimeError.NAME,
                    "The interpreter could not run the execution: " + ex.getMessage());
            return;
        }
        boolean stale;
        synchronized (this) {
            stale = status != ExecutionStatus.RUNNING;
            if (!stale) {
                run = launched;
                deadline = timer;
            }
        }
        if (stale) {
            timer.cancel();
            launched.stop();
        }
    }

    @Override
    public long onEvent(String type, ObjectNode details, Instant timestamp) {
        synchronized (this) {
            if (status != ExecutionStatus.RUNNING) {
                return -1;
            }
            if (type.endsWith("StateEntered") && details.hasNonNull("name")) {
                currentState = details.get("name").asText();
                currentInput = details.path("input").asText("");
            }
            for (String payload : new String[] {"input", "output"}) {
                JsonNode value = details.get(payload);
                if (value != null) {
                    largestPayloadBytes = Math.max(largestPayloadBytes, value.asText().length());
                }
            }
        }
        return log(type, details, timestamp.toEpochMilli());
    }

    /** Express executions are not persisted between transitions: there is nothing to resume from. */
    @Override
    public void onCheckpoint(Checkpoint checkpoint) {
    }

    @Override
    public void onCompleted(RunOutcome outcome) {
        switch (outcome.status()) {
            case SUCCEEDED -> {
                String text = outcome.output() == null ? "null" : outcome.output().toString();
                int bytes = text.getBytes(StandardCharsets.UTF_8).length;
                if (bytes > StepFunctionsLimits.MAX_PAYLOAD_BYTES) {
                    end(ExecutionStatus.FAILED, null, StatesDataLimitExceededError.NAME, "The execution output has "
                            + bytes + " bytes, more than the limit of " + StepFunctionsLimits.MAX_PAYLOAD_BYTES);
                } else {
                    end(ExecutionStatus.SUCCEEDED, text, null, null);
                }
            }
            case FAILED -> end(ExecutionStatus.FAILED, null, outcome.error(), outcome.cause());
            // Its TimeoutSeconds ended it: no error or cause, as a Standard execution's (Execution#onCompleted).
            case TIMED_OUT -> end(ExecutionStatus.TIMED_OUT, null, null, null);
        }
    }

    /** Closes the execution once, withdraws its run, bills it and tells whoever waits for it. */
    private void end(ExecutionStatus ending, String endOutput, String endError, String endCause) {
        Run withdrawn;
        Timer.Cancellable limit;
        long now = host().clock.millis();
        synchronized (this) {
            if (status != ExecutionStatus.RUNNING) {
                return;
            }
            status = ending;
            stopMillis = now;
            output = endOutput;
            error = endError;
            cause = endCause;
            withdrawn = run;
            run = null;
            limit = deadline;
            deadline = null;
            if (endOutput != null) {
                largestPayloadBytes = Math.max(largestPayloadBytes, endOutput.length());
            }
        }
        if (limit != null) {
            limit.cancel();
        }
        if (withdrawn != null) {
            withdrawn.stop();
        }
        ObjectNode details = JsonNodeFactory.instance.objectNode();
        if (endOutput != null) {
            details.put("output", endOutput);
        }
        if (endError != null) {
            details.put("error", endError);
        }
        if (endCause != null) {
            details.put("cause", endCause);
        }
        log(switch (ending) {
            case SUCCEEDED -> "ExecutionSucceeded";
            case TIMED_OUT -> "ExecutionTimedOut";
            case ABORTED -> "ExecutionAborted";
            default -> "ExecutionFailed";
        }, details, now);
        billing = owner.closed(this, now - startMillis, largestPayloadBytes + revision.parsed().json().length());
        closed.complete(describe());
    }

    /** The engine is closing: the run stops where it is, as a host failure would stop it in AWS. */
    void withdraw() {
        Run withdrawn;
        Timer.Cancellable limit;
        synchronized (this) {
            withdrawn = run;
            run = null;
            limit = deadline;
            deadline = null;
        }
        if (limit != null) {
            limit.cancel();
        }
        if (withdrawn != null) {
            withdrawn.stop();
        }
    }

    /** What a {@code .sync} parent and the console read: AWS's DescribeExecution fields. */
    synchronized ExecutionDescription describe() {
        return new ExecutionDescription(arn, stateMachine.arn, name, status, Instant.ofEpochMilli(startMillis),
                status.isClosed() ? Instant.ofEpochMilli(stopMillis) : null, new String(input, StandardCharsets.UTF_8),
                output, error, cause);
    }

    /** The state the run last entered, for the console. */
    synchronized String currentState() {
        return currentState;
    }

    /** The input of the state the run last entered (JSON text), for the console: an Express run keeps no history. */
    synchronized String currentInput() {
        return currentInput;
    }

    /** Numbers the event as AWS numbers an Express execution's events, and logs it if the logging level says so. */
    private long log(String type, ObjectNode details, long timestampMillis) {
        ExecutionLogging logging = stateMachine.logging;
        int id;
        synchronized (this) {
            id = ++eventId;
        }
        if (!logging.logs(type)) {
            return id;
        }
        ObjectNode line = JsonNodeFactory.instance.objectNode();
        line.put("id", Integer.toString(id));
        line.put("type", type);
        ObjectNode logged = details.deepCopy();
        if (!logging.includeExecutionData()) {
            logged.remove("input");
            logged.remove("output");
            logged.remove("parameters");
        }
        line.set("details", logged);
        line.put("previous_event_id", Integer.toString(id - 1));
        line.put("event_timestamp", Long.toString(timestampMillis));
        line.put("execution_arn", arn);
        host().executionLog.append(stateMachine.arn, line.toString());
        return id;
    }
}
