package dev.punctual.local.stepfunctions.executions;

/**
 * Told when an execution starts and when it closes, for views that keep their own index of
 * executions (the local console's pending list). Called on the engine's threads, outside its locks:
 * keep the work short and never call back into the engine from it.
 */
public interface ExecutionListener {

    /** A new execution is running. Repeated starts that answer an existing execution are not reported. */
    void started(ExecutionDescription execution);

    /** An execution closed: succeeded, failed, timed out or aborted. */
    void closed(ExecutionDescription execution);
}
