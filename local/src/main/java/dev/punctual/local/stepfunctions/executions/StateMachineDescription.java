package dev.punctual.local.stepfunctions.executions;

import java.time.Instant;

/**
 * What DescribeStateMachine and ListStateMachines report.
 *
 * @param status {@code ACTIVE} or {@code DELETING}
 * @param type always {@code STANDARD}: the only type this engine runs
 */
public record StateMachineDescription(
        String stateMachineArn,
        String name,
        String status,
        String definition,
        String roleArn,
        String type,
        Instant creationDate,
        Instant updateDate) {
}
