package dev.punctual.local.stepfunctions.executions;

/**
 * What StartSyncExecution answers once the Express execution it started has closed: the execution, and
 * what it was billed (AWS's {@code billingDetails}).
 *
 * @param execution the closed execution
 * @param billedDurationMillis its duration, rounded up to the next 100 ms
 * @param billedMemoryMegabytes the memory it was billed at, in 64 MB steps
 */
public record SyncExecutionResult(ExecutionDescription execution, long billedDurationMillis,
        long billedMemoryMegabytes) {
}
