package dev.punctual.local.stepfunctions.executions;

import java.time.Instant;

/**
 * What DescribeStateMachine and ListStateMachines report.
 *
 * @param status {@code ACTIVE} or {@code DELETING}
 * @param type {@code STANDARD} or {@code EXPRESS}
 * @param logging its {@code loggingConfiguration}
 */
public record StateMachineDescription(
        String stateMachineArn,
        String name,
        String status,
        String definition,
        String roleArn,
        String type,
        Instant creationDate,
        Instant updateDate,
        ExecutionLogging logging) {
}
