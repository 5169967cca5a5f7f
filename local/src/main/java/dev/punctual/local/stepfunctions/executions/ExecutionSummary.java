package dev.punctual.local.stepfunctions.executions;

import java.time.Instant;

/** One item of ListExecutions; {@code stopDate} is {@code null} while running. */
public record ExecutionSummary(
        String executionArn,
        String stateMachineArn,
        String name,
        ExecutionStatus status,
        Instant startDate,
        Instant stopDate) {
}
