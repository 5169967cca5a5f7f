package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.JsonNode;
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
 * One execution and its lifecycle: it opens ({@link #open}), runs ({@link #launch}), hears what its
 * run reports (it is its own {@link RunObserver}), parks in long waits, and closes once ({@link #close}),
 * whether it succeeded, failed, timed out or was stopped, live or replayed from the journal. What it
 * records along the way, and how that becomes durable, is {@link RecordedExecution}'s.
 */
final class Execution extends RecordedExecution implements RunObserver {

    private static final System.Logger LOG = System.getLogger(Execution.class.getName());
    /** Waits ending sooner than this stay with the interpreter; longer ones are parked. */
    private static final long PARK_AFTER_MILLIS = 5_000;

    private Run run;
    /** Set while parked: the run is withdrawn and this wakes the execution at its Wait's end. */
    private Timer.Cancellable parked;
    /**
     * Its mocked Task states' answers when it was started with a test case; one object for its whole life,
     * so invocations go on being counted after a long Wait parks it. Not journaled: after a restart it
     * runs on unmocked.
     */
    private TaskMocks mocks = TaskMocks.NONE;

    Execution(StateMachine stateMachine, StateMachineRevision revision, String name, long startMillis, byte[] input) {
        super(stateMachine, revision, name, startMillis, input);
    }

    /** A key for searching {@link StateMachine#newestFirst}. */
    static Execution probe(long startMillis, String name) {
        return new Execution(null, null, name, startMillis, EMPTY);
    }

    // ---------------------------------------------------------------- running

    /** Before it is launched: the answers of its mocked Task states (its test case's). */
    void useMocks(TaskMocks taskMocks) {
        this.mocks = taskMocks;
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
                    ? host().interpreter.start(revision.parsed(), context, executionInput, this, mocks)
                    : host().interpreter.resume(revision.parsed(), context, checkpoint, this, mocks);
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
            checkpoint = lastCheckpoint();
        }
        launch(checkpoint);
    }

    @Override
    public long onEvent(String type, ObjectNode details, Instant timestamp) {
        if (type.startsWith("Execution")) {
            // Execution-level events are the execution's own: it writes them when it opens and closes.
            return -1;
        }
        if (stateMachine.deleting) {
            fail(StatesRuntimeError.NAME, "State machine " + stateMachine.name + " has been deleted.");
            return -1;
        }
        boolean full;
        long id;
        synchronized (this) {
            if (status != ExecutionStatus.RUNNING) {
                return -1;
            }
            appendEvent(type, details, timestamp.toEpochMilli());
            id = eventCount;
            full = eventCount >= MAX_HISTORY_EVENTS - 1;
        }
        if (full) {
            fail(StatesRuntimeError.NAME, "The execution reached the maximum number of history events ("
                    + MAX_HISTORY_EVENTS + ").");
        }
        return id;
    }

    @Override
    public void onCheckpoint(Checkpoint checkpoint) {
        if (recordCheckpoint(checkpoint) && checkpoint.wakeAt() != null) {
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
            // Its TimeoutSeconds ended it: AWS's DescribeExecution then has neither error nor cause (recorded,
            // test_global_timeout), and nor has the ExecutionTimedOut event (LocalStack's, which passes that test).
            case TIMED_OUT -> close(ExecutionStatus.TIMED_OUT, null, null, null);
        }
    }

    /**
     * Parks the execution if it waits in a long Wait: its run is withdrawn (releasing the interpreter's
     * per-run state and JSON trees) and one timer entry resumes it from its checkpoint at the
     * recorded wake-up instant, or at its {@code TimeoutSeconds} if that comes first (the withdrawn run
     * takes its time-out with it; the resumed one times out at once). This is what lets a million idle
     * executions fit in a small heap; the resumed Wait ends at once since its instant has come, exactly as
     * after a restart.
     */
    private void park() {
        Run withdrawn;
        synchronized (this) {
            long wake = checkpointWakeMillis;
            long resumeAt = Math.min(wake, timeoutMillis());
            if (status != ExecutionStatus.RUNNING || run == null || parked != null || wake < 0
                    || resumeAt - host().clock.millis() < PARK_AFTER_MILLIS) {
                return;
            }
            withdrawn = run;
            run = null;
            parked = host().timer.schedule(Instant.ofEpochMilli(resumeAt), () -> unpark(wake));
        }
        withdrawn.stop();
    }

    /** When the definition's {@code TimeoutSeconds} ends the execution; {@link Long#MAX_VALUE} without one. */
    private long timeoutMillis() {
        long seconds = revision.parsed().timeoutSeconds();
        return seconds > 0 ? startMillis + seconds * 1000 : Long.MAX_VALUE;
    }

    private void unpark(long wake) {
        Checkpoint checkpoint;
        synchronized (this) {
            if (status != ExecutionStatus.RUNNING || parked == null || checkpointWakeMillis != wake) {
                return;
            }
            parked = null;
            checkpoint = lastCheckpoint();
        }
        launch(checkpoint);
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
     * Closes a running execution with {@code status}, recording it ({@link #recordClose}) and
     * releasing its park. Only the first close counts.
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
            CompletableFuture<Void> durable = recordClose(status, now, output, error, cause);
            if (parked != null) {
                parked.cancel();
                parked = null;
            }
            closing = new Closing(run, now, durable);
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
}
