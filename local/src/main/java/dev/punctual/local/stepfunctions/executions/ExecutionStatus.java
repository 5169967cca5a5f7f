package dev.punctual.local.stepfunctions.executions;

/** AWS's {@code ExecutionStatus}. */
public enum ExecutionStatus {
    RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED;

    public boolean isClosed() {
        return this != RUNNING;
    }
}
