package dev.punctual.local.stepfunctions.executions;

import java.time.Instant;

/**
 * What DescribeExecution reports. Fields AWS omits for the execution's status are {@code null}:
 * {@code stopDate} while running, {@code output} unless succeeded, {@code error}/{@code cause}
 * unless failed, timed out or aborted with them.
 */
public record ExecutionDescription(
        String executionArn,
        String stateMachineArn,
        String name,
        ExecutionStatus status,
        Instant startDate,
        Instant stopDate,
        String input,
        String output,
        String error,
        String cause) {
}
