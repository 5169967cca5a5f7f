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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One execution and its lifecycle: it opens ({@link #open}), runs ({@link #launch}), records what its
 * run reports (it is its own observer), parks in long waits, and closes once ({@link #close}), whether
 * it succeeded, failed, timed out or was stopped, live or replayed from the journal.
 *
 * <p>Kept small because a process holds a million idle ones: payloads are UTF-8 bytes, history is
 * one compact byte array ({@link HistoryCodec}), the ARN is derived, and what executions share (the
 * clock, the journal, the interpreter) is reached through the {@link StateMachine}. Mutable state is
 * guarded by the object's monitor.
 */
final class Execution implements RunObserver {

    /** The largest history: the run fails with {@code States.Runtime} when it reaches it. */
    static final int MAX_HISTORY_EVENTS = 25_000;

    private static final System.Logger LOG = System.getLogger(Execution.class.getName());
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    /** Waits ending sooner than this stay with the interpreter; longer ones are parked. */
    private static final long PARK_AFTER_MILLIS = 5_000;
    private static final byte[] EMPTY = new byte[0];

    final StateMachine stateMachine;
    final StateMachineRevision revision;
    final String name;
    final long startMillis;
    final byte[] input;

    ExecutionStatus status = ExecutionStatus.RUNNING;
    long stopMillis;
    byte[] output;
    String error;
    String cause;

    byte[] history = EMPTY;
    int historyLength;
    int eventCount;

    /** Last checkpoint of a running execution; {@code checkpointInput == null} means "the execution input". */
    String checkpointState;
    byte[] checkpointInput;
    long checkpointEnteredMillis;
    long checkpointWakeMillis = -1;

    private Run run;
    /** Set while parked: the run is withdrawn and this wakes the execution at its Wait's end. */
    private Timer.Cancellable parked;

    Execution(StateMachine stateMachine, StateMachineRevision revision, String name, long startMillis, byte[] input) {
        this.stateMachine = stateMachine;
        this.revision = revision;
        this.name = name;
        this.startMillis = startMillis;
        this.input = input;
    }

    /** A key for searching {@link StateMachine#newestFirst}. */
    static Execution probe(long startMillis, String name) {
        return new Execution(null, null, name, startMillis, EMPTY);
    }

    /** What DescribeExecution answers. */
    synchronized ExecutionDescription describe() {
        return new ExecutionDescription(arn(), stateMachine.arn, name, status, Instant.ofEpochMilli(startMillis),
                status.isClosed() ? Instant.ofEpochMilli(stopMillis) : null, utf8(input),
                output == null ? null : utf8(output), error, cause);
    }

    private ExecutionHost host() {
        return stateMachine.host;
    }

    String arn() {
        return host().arns.execution(stateMachine.name, name);
    }

    // ---------------------------------------------------------------- opening and running

    /**
     * Writes the start to the journal and the {@code ExecutionStarted} event; the future completes
     * once the start is durable.
     */
    synchronized CompletableFuture<Void> open() {
        CompletableFuture<Void> durable = host().journal().append(JournalCodec.executionStarted(this));
        ObjectNode details = JsonNodeFactory.instance.objectNode();
        details.put("input", utf8(input));
        details.put("roleArn", revision.roleArn());
        appendEvent("ExecutionStarted", details, startMillis);
        return durable;
    }

    /** Runs the execution from its start, or from {@code checkpoint}. */
    void launch(Checkpoint checkpoint) {
        Run started;
        try {
            JsonNode executionInput = MAPPER.readTree(input);
            // $$.Execution.Input is the start input for the whole life of the execution, also when it
            // goes on from a checkpoint (after a restart, or after a long Wait parked it).
            ContextObject context = new ContextObject(arn(), name, Instant.ofEpochMilli(startMillis),
                    revision.roleArn(), stateMachine.arn, stateMachine.name, executionInput);
            started = checkpoint == null
                    ? host().interpreter.start(revision.parsed(), context, executionInput, this)
                    : host().interpreter.resume(revision.parsed(), context, checkpoint, this);
        } catch (IOException | RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, "Execution " + name + " of " + stateMachine.name
                    + " could not be run: " + ex);
            fail(StatesRuntimeError.NAME, "The interpreter could not run the execution: " + ex.getMessage());
            return;
        }
        boolean stale;
        synchronized (this) {
            stale = status != ExecutionStatus.RUNNING;
            if (!stale) {
                run = started;
            }
        }
        if (stale) {
            started.stop();
        } else {
            park();
        }
    }

    /** Runs a recovered execution on from its last checkpoint, or from its start if it has none. */
    void resume() {
        Checkpoint checkpoint;
        synchronized (this) {
            checkpoint = checkpointState == null ? null : checkpoint();
        }
        launch(checkpoint);
    }

    @Override
    public void onEvent(String type, ObjectNode details, Instant timestamp) {
        if (type.startsWith("Execution")) {
            // Execution-level events are the execution's own: it writes them when it opens and closes.
            return;
        }
        if (stateMachine.deleting) {
            fail(StatesRuntimeError.NAME, "State machine " + stateMachine.name + " has been deleted.");
            return;
        }
        boolean full;
        synchronized (this) {
            if (status != ExecutionStatus.RUNNING) {
                return;
            }
            appendEvent(type, details, timestamp.toEpochMilli());
            full = eventCount >= MAX_HISTORY_EVENTS - 1;
        }
        if (full) {
            fail(StatesRuntimeError.NAME, "The execution reached the maximum number of history events ("
                    + MAX_HISTORY_EVENTS + ").");
        }
    }

    @Override
    public void onCheckpoint(Checkpoint checkpoint) {
        synchronized (this) {
            if (status != ExecutionStatus.RUNNING) {
                return;
            }
            byte[] stateInput = checkpoint.stateInput() == null ? null
                    : checkpoint.stateInput().toString().getBytes(StandardCharsets.UTF_8);
            checkpointState = checkpoint.stateName();
            checkpointInput = stateInput == null || Arrays.equals(stateInput, input) ? null : stateInput;
            checkpointEnteredMillis = checkpoint.enteredAt().toEpochMilli();
            checkpointWakeMillis = checkpoint.wakeAt() == null ? -1 : checkpoint.wakeAt().toEpochMilli();
            host().journal().append(JournalCodec.checkpoint(this));
        }
        if (checkpoint.wakeAt() != null) {
            host().launcher.execute(this::park);
        }
    }

    @Override
    public void onCompleted(RunOutcome outcome) {
        switch (outcome.status()) {
            case SUCCEEDED -> {
                String text = outcome.output() == null ? "null" : outcome.output().toString();
                byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                if (bytes.length > StepFunctionsLimits.MAX_PAYLOAD_BYTES) {
                    close(ExecutionStatus.FAILED, null, StatesDataLimitExceededError.NAME, "The execution output has "
                            + bytes.length + " bytes, more than the limit of " + StepFunctionsLimits.MAX_PAYLOAD_BYTES);
                } else {
                    close(ExecutionStatus.SUCCEEDED, bytes, null, null);
                }
            }
            case FAILED -> close(ExecutionStatus.FAILED, null, outcome.error(), outcome.cause());
            case TIMED_OUT -> close(ExecutionStatus.TIMED_OUT, null, outcome.error(), outcome.cause());
        }
    }

    /**
     * Parks the execution if it waits in a long Wait: its run is withdrawn (releasing the interpreter's
     * per-run state and JSON trees) and one timer entry resumes it from its checkpoint at the
     * recorded wake-up instant. This is what lets a million idle executions fit in a small heap; the
     * resumed Wait ends at once since its instant has come, exactly as after a restart.
     */
    private void park() {
        Run withdrawn;
        synchronized (this) {
            long wake = checkpointWakeMillis;
            if (status != ExecutionStatus.RUNNING || run == null || parked != null || wake < 0
                    || wake - host().clock.millis() < PARK_AFTER_MILLIS) {
                return;
            }
            withdrawn = run;
            run = null;
            parked = host().timer.schedule(Instant.ofEpochMilli(wake), () -> unpark(wake));
        }
        withdrawn.stop();
    }

    private void unpark(long wake) {
        Checkpoint checkpoint;
        synchronized (this) {
            if (status != ExecutionStatus.RUNNING || parked == null || checkpointWakeMillis != wake) {
                return;
            }
            parked = null;
            checkpoint = checkpoint();
        }
        launch(checkpoint);
    }

    private Checkpoint checkpoint() {
        try {
            return new Checkpoint(checkpointState,
                    MAPPER.readTree(checkpointInput == null ? input : checkpointInput),
                    Instant.ofEpochMilli(checkpointEnteredMillis),
                    checkpointWakeMillis < 0 ? null : Instant.ofEpochMilli(checkpointWakeMillis));
        } catch (IOException ex) {
            throw new IllegalStateException("Corrupt checkpoint of execution " + arn(), ex);
        }
    }

    // ---------------------------------------------------------------- closing

    /** What closing changed: the run to withdraw, when, and when the close is durable. */
    record Closing(Run run, long stopMillis, CompletableFuture<Void> durable) {

        void withdraw() {
            if (run != null) {
                run.stop();
            }
        }
    }

    /**
     * Closes a running execution with {@code status}: the closing event AWS writes for that status
     * ({@code ExecutionSucceeded}, {@code ExecutionFailed}, {@code ExecutionTimedOut} or
     * {@code ExecutionAborted}), the outcome, the journal record. Only the first close counts.
     *
     * @return what changed, or {@code null} if the execution was already closed
     */
    Closing close(ExecutionStatus status, byte[] output, String error, String cause) {
        Closing closing;
        synchronized (this) {
            if (this.status != ExecutionStatus.RUNNING) {
                return null;
            }
            long now = host().clock.millis();
            ObjectNode details = JsonNodeFactory.instance.objectNode();
            if (output != null) {
                details.put("output", utf8(output));
            }
            if (error != null) {
                details.put("error", error);
            }
            if (cause != null) {
                details.put("cause", cause);
            }
            appendEvent(closingEventType(status), details, now);
            enterClosed(status, now, output, error, cause);
            if (parked != null) {
                parked.cancel();
                parked = null;
            }
            closing = new Closing(run, now, host().journal().append(JournalCodec.completed(this)));
            run = null;
        }
        host().closed(this);
        return closing;
    }

    /** Applies a close read back from the journal: the same transition, its event already in the history. */
    void replayClose(ExecutionStatus status, long stopMillis, byte[] output, String error, String cause) {
        synchronized (this) {
            if (this.status != ExecutionStatus.RUNNING) {
                return;
            }
            enterClosed(status, stopMillis, output, error, cause);
        }
        host().closed(this);
    }

    private void enterClosed(ExecutionStatus status, long stopMillis, byte[] output, String error, String cause) {
        this.status = status;
        this.stopMillis = stopMillis;
        this.output = output;
        this.error = error;
        this.cause = cause;
        checkpointState = null;
        checkpointInput = null;
        trimHistory();
    }

    private static String closingEventType(ExecutionStatus status) {
        return switch (status) {
            case SUCCEEDED -> "ExecutionSucceeded";
            case FAILED -> "ExecutionFailed";
            case TIMED_OUT -> "ExecutionTimedOut";
            case ABORTED -> "ExecutionAborted";
            case RUNNING -> throw new IllegalArgumentException("An execution closes with a closed status");
        };
    }

    /**
     * StopExecution: {@code ABORTED}, an {@code ExecutionAborted} event, the run withdrawn. Stopping a
     * closed execution changes nothing and answers its stop date.
     */
    CompletableFuture<Instant> stop(String error, String cause) {
        Closing closing = close(ExecutionStatus.ABORTED, null, error, cause);
        if (closing == null) {
            synchronized (this) {
                return CompletableFuture.completedFuture(Instant.ofEpochMilli(stopMillis));
            }
        }
        closing.withdraw();
        Instant stopped = Instant.ofEpochMilli(closing.stopMillis());
        return closing.durable().thenApply(ok -> stopped);
    }

    /** Fails the execution and withdraws its run. */
    void fail(String error, String cause) {
        Closing closing = close(ExecutionStatus.FAILED, null, error, cause);
        if (closing != null) {
            closing.withdraw();
        }
    }

    /** The one-year limit passed: {@code TIMED_OUT} with {@code States.Timeout}, the run withdrawn. */
    void timeOut() {
        Closing closing = close(ExecutionStatus.TIMED_OUT, null, StatesTimeoutError.NAME, null);
        if (closing != null) {
            closing.withdraw();
        }
    }

    /** Withdraws the run without closing: a durable engine resumes the execution on its next start. */
    void withdraw() {
        Run withdrawn;
        synchronized (this) {
            withdrawn = run;
            if (parked != null) {
                parked.cancel();
                parked = null;
            }
        }
        if (withdrawn != null) {
            withdrawn.stop();
        }
    }

    // ---------------------------------------------------------------- history

    private void appendEvent(String type, ObjectNode details, long timestampMillis) {
        if (type.endsWith("Scheduled") || (type.endsWith("StateEntered") && !type.equals("TaskStateEntered"))) {
            host().billedTransitions.increment();
        }
        byte[] encoded = HistoryCodec.encode(type, timestampMillis, details, input);
        appendHistory(encoded);
        host().journal().append(JournalCodec.event(this, eventCount, encoded));
    }

    /** Applies one history event read back from the journal, if it is the next one. */
    void replayEvent(int eventId, byte[] event) {
        if (eventId == eventCount + 1) {
            appendHistory(event);
        }
    }

    /** Applies a whole history read back from a snapshot, if it is longer than what is here. */
    void replayHistory(int count, byte[] whole) {
        if (count > eventCount) {
            history = whole;
            historyLength = whole.length;
            eventCount = count;
        }
    }

    /** Applies a checkpoint read back from the journal, if the execution still runs. */
    void replayCheckpoint(String state, byte[] stateInput, long enteredMillis, long wakeMillis) {
        if (status == ExecutionStatus.RUNNING) {
            checkpointState = state;
            checkpointInput = stateInput;
            checkpointEnteredMillis = enteredMillis;
            checkpointWakeMillis = wakeMillis;
        }
    }

    private void appendHistory(byte[] event) {
        int needed = historyLength + event.length;
        if (needed > history.length) {
            // Exact sizes while the history is short (idle executions), room to grow once it is not.
            int capacity = eventCount < 8 ? needed : Math.max(needed, history.length + (history.length >> 1));
            history = Arrays.copyOf(history, capacity);
        }
        System.arraycopy(event, 0, history, historyLength, event.length);
        historyLength = needed;
        eventCount++;
    }

    private void trimHistory() {
        if (history.length != historyLength) {
            history = Arrays.copyOf(history, historyLength);
        }
    }

    /** This execution's records for a snapshot: its start, its history, and its outcome or checkpoint. */
    void writeSnapshot(Consumer<byte[]> sink) {
        byte[][] records;
        synchronized (this) {
            records = new byte[][] {
                JournalCodec.executionStarted(this),
                JournalCodec.history(this),
                status.isClosed() ? JournalCodec.completed(this)
                        : checkpointState == null ? null : JournalCodec.checkpoint(this)};
        }
        for (byte[] r : records) {
            if (r != null) {
                sink.accept(r);
            }
        }
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
