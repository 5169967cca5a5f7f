package dev.punctual.local.stepfunctions.asl;

import java.time.Instant;

/**
 * What the context object ({@code $$}) tells about the execution; {@code $$.State.*} and
 * {@code $$.Map.*} are the interpreter's own.
 *
 * @param executionArn {@code $$.Execution.Id}
 * @param executionName {@code $$.Execution.Name}
 * @param startTime {@code $$.Execution.StartTime}
 * @param roleArn {@code $$.Execution.RoleArn}
 * @param stateMachineArn {@code $$.StateMachine.Id}
 * @param stateMachineName {@code $$.StateMachine.Name}
 */
public record ExecutionContext(
        String executionArn,
        String executionName,
        Instant startTime,
        String roleArn,
        String stateMachineArn,
        String stateMachineName) {
}
