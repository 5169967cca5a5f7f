package dev.punctual.local.stepfunctions.asl;

/** A run in progress. */
public interface ExecutionRun {

    /**
     * Stops the run (StopExecution): pending wake-ups are withdrawn, no further event, checkpoint or
     * completion is reported. A task already calling out finishes but its result is dropped.
     */
    void stop();
}
