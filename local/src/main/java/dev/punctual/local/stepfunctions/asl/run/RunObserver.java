package dev.punctual.local.stepfunctions.asl.run;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * Receives what a run does, in order, from whichever thread the run is on at the time: its history
 * events, its checkpoints and its end. The backend's execution is the observer of its own run.
 */
public interface RunObserver {

    /**
     * A history event. {@code type} is AWS's {@code HistoryEventType} (e.g. {@code WaitStateEntered},
     * {@code TaskScheduled}, {@code TaskFailed}); {@code details} holds the fields AWS puts in that
     * event's details object (e.g. {@code name}, {@code input}, {@code output}, {@code resource},
     * {@code resourceType}, {@code parameters}, {@code error}, {@code cause}), JSON payloads as strings.
     *
     * @return the id the execution's history gives the event (the first event, {@code ExecutionStarted}, is
     *     1); a run names the state it was executing by the id of that state's entered event. Any value
     *     once the execution no longer records events.
     */
    long onEvent(String type, ObjectNode details, Instant timestamp);

    /** The run is at a top-level state boundary; {@code Interpreter.resume} continues from here. */
    void onCheckpoint(Checkpoint checkpoint);

    /** The run ended; called exactly once, never after {@link Run#stop()}. */
    void onCompleted(RunOutcome outcome);
}
