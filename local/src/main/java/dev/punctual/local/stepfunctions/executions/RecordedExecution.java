package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * What the engine records of one execution and how each record becomes durable: its identity and
 * input, its history (one compact byte array, {@link HistoryCodec}), its last checkpoint while it runs,
 * its outcome once closed. Every change is written to the journal as it is made ({@link JournalCodec});
 * the {@code replay…} methods apply the same changes read back after a restart, and
 * {@link #writeSnapshot} writes them all at once. {@link Execution} adds the run that makes the changes.
 *
 * <p>A base class rather than a part the execution holds, because a process holds a million idle
 * executions: one object each, with no second header and reference, keeps them small. For the same
 * reason payloads are UTF-8 bytes, the ARN is derived, and what executions share (the clock, the
 * journal, the interpreter) is reached through the {@link StateMachine}. Mutable state is guarded by
 * the object's monitor.
 */
abstract class RecordedExecution {

    /** The largest history: the run fails with {@code States.Runtime} when it reaches it. */
    static final int MAX_HISTORY_EVENTS = 25_000;

    static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    static final byte[] EMPTY = new byte[0];

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
    /** A Wait checkpoint's entered event, which its errors name; 0 for any other checkpoint. */
    int checkpointEnteredEventId;

    /**
     * The closed-execution file this closed execution was filed in, durably; {@code null} until then. A
     * filed execution is in no later snapshot: the file holds it until it is forgotten.
     */
    Journal.ClosedFile filedIn;

    RecordedExecution(StateMachine stateMachine, StateMachineRevision revision, String name, long startMillis,
            byte[] input) {
        this.stateMachine = stateMachine;
        this.revision = revision;
        this.name = name;
        this.startMillis = startMillis;
        this.input = input;
    }

    /** What DescribeExecution answers. */
    synchronized ExecutionDescription describe() {
        return new ExecutionDescription(arn(), stateMachine.arn, name, status, Instant.ofEpochMilli(startMillis),
                status.isClosed() ? Instant.ofEpochMilli(stopMillis) : null, utf8(input),
                output == null ? null : utf8(output), error, cause);
    }

    final ExecutionHost host() {
        return stateMachine.host;
    }

    String arn() {
        return host().arns.execution(stateMachine.name, name);
    }

    // ---------------------------------------------------------------- start, checkpoints, close

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

    /**
     * Keeps {@code checkpoint} as the point to go on from and writes it to the journal.
     *
     * @return {@code false}, recording nothing, if the execution no longer runs
     */
    synchronized boolean recordCheckpoint(Checkpoint checkpoint) {
        if (status != ExecutionStatus.RUNNING) {
            return false;
        }
        byte[] stateInput = checkpoint.stateInput() == null ? null
                : checkpoint.stateInput().toString().getBytes(StandardCharsets.UTF_8);
        checkpointState = checkpoint.stateName();
        checkpointInput = stateInput == null || Arrays.equals(stateInput, input) ? null : stateInput;
        checkpointEnteredMillis = checkpoint.enteredAt().toEpochMilli();
        checkpointWakeMillis = checkpoint.wakeAt() == null ? -1 : checkpoint.wakeAt().toEpochMilli();
        checkpointEnteredEventId = (int) checkpoint.enteredEventId();
        host().journal().append(JournalCodec.checkpoint(this));
        return true;
    }

    /** The last recorded checkpoint, or {@code null} if the execution has none; call holding the monitor. */
    Checkpoint lastCheckpoint() {
        if (checkpointState == null) {
            return null;
        }
        try {
            return new Checkpoint(checkpointState,
                    MAPPER.readTree(checkpointInput == null ? input : checkpointInput),
                    Instant.ofEpochMilli(checkpointEnteredMillis),
                    checkpointWakeMillis < 0 ? null : Instant.ofEpochMilli(checkpointWakeMillis),
                    checkpointEnteredEventId);
        } catch (IOException ex) {
            throw new IllegalStateException("Corrupt checkpoint of execution " + arn(), ex);
        }
    }

    /**
     * Records the close of a running execution with {@code status} at {@code stopMillis}: the closing
     * event AWS writes for that status ({@code ExecutionSucceeded}, {@code ExecutionFailed},
     * {@code ExecutionTimedOut} or {@code ExecutionAborted}), the outcome, the journal record. Call
     * holding the monitor, on a running execution.
     *
     * @return completes once the close is durable
     */
    CompletableFuture<Void> recordClose(ExecutionStatus status, long stopMillis, byte[] output, String error,
            String cause) {
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
        appendEvent(closingEventType(status), details, stopMillis);
        enterClosed(status, stopMillis, output, error, cause);
        return host().journal().append(JournalCodec.completed(this));
    }

    /** The outcome of a close, live or replayed; call holding the monitor. */
    void enterClosed(ExecutionStatus status, long stopMillis, byte[] output, String error, String cause) {
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

    // ---------------------------------------------------------------- history

    /** Appends one event to the history and the journal, counting the transitions AWS bills; call holding the monitor. */
    void appendEvent(String type, ObjectNode details, long timestampMillis) {
        if (type.endsWith("Scheduled") || (type.endsWith("StateEntered") && !type.equals("TaskStateEntered"))) {
            host().billedTransitions.increment();
        }
        byte[] encoded = HistoryCodec.encode(type, timestampMillis, details, input);
        appendHistory(encoded);
        host().journal().append(JournalCodec.event(this, eventCount, encoded));
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

    // ---------------------------------------------------------------- replay and snapshots

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
    void replayCheckpoint(String state, byte[] stateInput, long enteredMillis, long wakeMillis, int enteredEventId) {
        if (status == ExecutionStatus.RUNNING) {
            checkpointState = state;
            checkpointInput = stateInput;
            checkpointEnteredMillis = enteredMillis;
            checkpointWakeMillis = wakeMillis;
            checkpointEnteredEventId = enteredEventId;
        }
    }

    /**
     * This execution for a compaction: while it runs, its start, history and checkpoint into the snapshot;
     * once filed, only a word that its file is still needed.
     *
     * @return {@code true}, writing nothing, if it is closed and not filed yet: the caller then {@link #file}s it
     */
    boolean writeSnapshot(Journal.SnapshotWriter writer) {
        Journal.ClosedFile kept;
        byte[][] running = null;
        synchronized (this) {
            kept = filedIn;
            if (kept == null && status.isClosed()) {
                return true;
            }
            if (kept == null) {
                running = new byte[][] {
                    JournalCodec.executionStarted(this),
                    JournalCodec.history(this),
                    checkpointState == null ? null : JournalCodec.checkpoint(this)};
            }
        }
        if (kept != null) {
            writer.stillKept(kept);
        } else {
            for (byte[] r : running) {
                if (r != null) {
                    writer.snapshot(r);
                }
            }
        }
        return false;
    }

    /** Files this closed execution whole ({@link JournalCodec#filed}), once; it is marked filed once that is durable. */
    void file(Journal.SnapshotWriter writer) {
        byte[] whole;
        synchronized (this) {
            whole = JournalCodec.filed(this);
        }
        writer.fileClosed(whole, this::filedIn);
    }

    /** When it closed; call once it is closed. */
    synchronized long stopMillis() {
        return stopMillis;
    }

    /** Marks this closed execution filed in {@code file}, which is durable. */
    synchronized void filedIn(Journal.ClosedFile file) {
        filedIn = file;
    }

    static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
