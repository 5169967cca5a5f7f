package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The optimized {@code arn:<partition>:states:::states:startExecution} integration, request-response
 * form: starts an execution on this engine and returns {@code {"ExecutionArn", "StartDate"}}.
 * {@code Input} may be an object (serialized) or a string (used as is). Failures carry the
 * integration's error names, e.g. {@code StepFunctions.ExecutionAlreadyExistsException}; a start
 * with the same name and input as a running execution returns that execution, as in AWS.
 */
public final class StartExecutionTaskResource implements TaskResource {

    private final Supplier<StepFunctionsEngine> engine;

    /** Takes a supplier because the interpreter that holds this resource is built before the engine. */
    public StartExecutionTaskResource(Supplier<StepFunctionsEngine> engine) {
        this.engine = engine;
    }

    @Override
    public boolean supports(String resourceArn) {
        String[] parts = resourceArn.split(":", -1);
        return parts.length == 7 && "arn".equals(parts[0]) && "states".equals(parts[2]) && parts[3].isEmpty()
                && parts[4].isEmpty() && "states".equals(parts[5]) && "startExecution".equals(parts[6]);
    }

    @Override
    public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
        try {
            JsonNode machine = parameters.path("StateMachineArn");
            if (!machine.isTextual()) {
                throw new TaskError(ErrorCode.VALIDATION.integrationErrorName(),
                        "StateMachineArn is required and must be a string");
            }
            JsonNode name = parameters.path("Name");
            JsonNode input = parameters.path("Input");
            String inputText = input.isMissingNode() || input.isNull() ? null
                    : input.isTextual() ? input.textValue() : input.toString();
            return engine.get().startExecution(machine.textValue(), name.isTextual() ? name.textValue() : null,
                    inputText).handle((started, failure) -> {
                        if (failure != null) {
                            throw new CompletionException(asTaskFailure(failure));
                        }
                        ObjectNode result = JsonNodeFactory.instance.objectNode();
                        result.put("ExecutionArn", started.executionArn());
                        result.put("StartDate", started.startDate().toEpochMilli());
                        return (JsonNode) result;
                    });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(asTaskFailure(e));
        }
    }

    private static RuntimeException asTaskFailure(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof AslError error) {
            return error;
        }
        if (cause instanceof StepFunctionsException sfe) {
            return new TaskError(sfe.code().integrationErrorName(), sfe.getMessage());
        }
        return new TaskError("StepFunctions.SdkClientException", String.valueOf(cause.getMessage()));
    }
}
