package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
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
 * @param input {@code $$.Execution.Input}; may be {@code null} on {@link AslInterpreter#start}, which
 *     knows the input, but should be given on {@link AslInterpreter#resume}, which otherwise cannot
 */
public record ExecutionContext(
        String executionArn,
        String executionName,
        Instant startTime,
        String roleArn,
        String stateMachineArn,
        String stateMachineName,
        JsonNode input) {

    /** A context without the execution input (the interpreter fills it in on {@code start}). */
    public ExecutionContext(String executionArn, String executionName, Instant startTime, String roleArn,
            String stateMachineArn, String stateMachineName) {
        this(executionArn, executionName, startTime, roleArn, stateMachineArn, stateMachineName, null);
    }

    /** This context with {@code $$.Execution.Input} set. */
    public ExecutionContext withInput(JsonNode executionInput) {
        return new ExecutionContext(executionArn, executionName, startTime, roleArn, stateMachineArn, stateMachineName,
                executionInput);
    }
}
