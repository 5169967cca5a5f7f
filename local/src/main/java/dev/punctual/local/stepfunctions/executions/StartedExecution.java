package dev.punctual.local.stepfunctions.executions;

import java.time.Instant;

/** What StartExecution answers; a repeated idempotent start answers the original start date. */
public record StartedExecution(String executionArn, Instant startDate) {
}
