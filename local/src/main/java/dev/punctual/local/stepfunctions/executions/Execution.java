package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.Checkpoint;
import dev.punctual.local.stepfunctions.asl.ExecutionObserver;
import dev.punctual.local.stepfunctions.asl.ExecutionOutcome;
import dev.punctual.local.stepfunctions.asl.ExecutionRun;
import dev.punctual.local.time.Timer;
import java.time.Instant;
import java.util.Arrays;

/**
 * One execution, kept small because a process holds a million idle ones: payloads are UTF-8 bytes,
 * history is one compact byte array ({@link HistoryCodec}), the ARN is derived, and the execution is
 * its own observer. Mutable state is guarded by the object's monitor; the engine does the mutating.
 */
final class Execution implements ExecutionObserver {

    final StateMachine stateMachine;
    final Definition definition;
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

    ExecutionRun run;
    /** Set while parked: the run is withdrawn and this wakes the execution at its Wait's end. */
    Timer.Cancellable parked;

    private static final byte[] EMPTY = new byte[0];

    Execution(StateMachine stateMachine, Definition definition, String name, long startMillis, byte[] input) {
        this.stateMachine = stateMachine;
        this.definition = definition;
        this.name = name;
        this.startMillis = startMillis;
        this.input = input;
    }

    /** A key for searching {@link StateMachine#newestFirst}. */
    static Execution probe(long startMillis, String name) {
        return new Execution(null, null, name, startMillis, EMPTY);
    }

    StepFunctionsEngine engine() {
        return stateMachine.engine;
    }

    void appendHistory(byte[] event) {
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

    void trimHistory() {
        if (history.length != historyLength) {
            history = Arrays.copyOf(history, historyLength);
        }
    }

    @Override
    public void onEvent(String type, ObjectNode details, Instant timestamp) {
        engine().recordEvent(this, type, details, timestamp);
    }

    @Override
    public void onCheckpoint(Checkpoint checkpoint) {
        engine().recordCheckpoint(this, checkpoint);
    }

    @Override
    public void onCompleted(ExecutionOutcome outcome) {
        engine().recordCompletion(this, outcome);
    }
}
