package dev.punctual.local.stepfunctions.asl.run;

/** A run of an execution in progress, as {@code Interpreter.start} and {@code resume} hand it to the backend. */
public interface Run {

    /**
     * Stops the run (StopExecution): pending wake-ups are withdrawn, no further event, checkpoint or
     * completion is reported. A task already calling out finishes but its result is dropped.
     */
    void stop();
}
