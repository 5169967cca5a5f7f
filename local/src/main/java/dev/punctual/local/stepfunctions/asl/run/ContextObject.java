package dev.punctual.local.stepfunctions.asl.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * The execution's part of the context object ({@code $$}): what the backend tells the interpreter about
 * the execution it runs. {@code $$.State.*} and {@code $$.Map.*} the run loop adds for each state.
 *
 * @param executionArn {@code $$.Execution.Id}
 * @param executionName {@code $$.Execution.Name}
 * @param startTime {@code $$.Execution.StartTime}
 * @param roleArn {@code $$.Execution.RoleArn}
 * @param stateMachineArn {@code $$.StateMachine.Id}
 * @param stateMachineName {@code $$.StateMachine.Name}
 * @param input {@code $$.Execution.Input}; may be {@code null} on {@code Interpreter.start}, which
 *     knows the input, but must be given on {@code Interpreter.resume}, which refuses to go on without it
 * @param express whether the execution is an Express one, whose context object AWS gives neither
 *     {@code $$.Execution.RedriveCount} nor {@code $$.State.RetryCount} (recorded: LocalStack's
 *     {@code test_query_runtime_memory}, {@code "State": {"Name", "EnteredTime"}})
 */
public record ContextObject(
        String executionArn,
        String executionName,
        Instant startTime,
        String roleArn,
        String stateMachineArn,
        String stateMachineName,
        JsonNode input,
        boolean express) {

    /** A Standard execution's context object without the execution input (the interpreter fills it in on {@code start}). */
    public ContextObject(String executionArn, String executionName, Instant startTime, String roleArn,
            String stateMachineArn, String stateMachineName) {
        this(executionArn, executionName, startTime, roleArn, stateMachineArn, stateMachineName, null, false);
    }

    /** A Standard execution's context object. */
    public ContextObject(String executionArn, String executionName, Instant startTime, String roleArn,
            String stateMachineArn, String stateMachineName, JsonNode input) {
        this(executionArn, executionName, startTime, roleArn, stateMachineArn, stateMachineName, input, false);
    }

    /** This context object with {@code $$.Execution.Input} set. */
    public ContextObject withInput(JsonNode executionInput) {
        return new ContextObject(executionArn, executionName, startTime, roleArn, stateMachineArn, stateMachineName,
                executionInput, express);
    }

    /** This context object, of an Express execution. */
    public ContextObject asExpress() {
        return new ContextObject(executionArn, executionName, startTime, roleArn, stateMachineArn, stateMachineName,
                input, true);
    }
}
