package dev.punctual.local.stepfunctions.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Lambda Task resources served by {@link LambdaFunctions}: {@code arn:<partition>:states:::lambda:invoke}
 * (Parameters {@code FunctionName}, {@code Payload}; result {@code {"ExecutedVersion", "Payload",
 * "SdkHttpMetadata", "SdkResponseMetadata", "StatusCode": 200}}) and plain function ARNs (result = the
 * payload). A function that throws fails the task with its exception's class name as the error and
 * {@code {"errorMessage", "errorType"}} as the cause; an unknown function with
 * {@code Lambda.ResourceNotFoundException}.
 */
public final class LambdaTaskResource implements TaskResource {

    private static final Pattern INVOKE = Pattern.compile("arn:aws[a-z-]*:states:::lambda:invoke");
    private static final Pattern FUNCTION = Pattern.compile(
            "arn:aws[a-z-]*:lambda:[a-z0-9-]+:\\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?");

    private final LambdaFunctions functions;

    public LambdaTaskResource(LambdaFunctions functions) {
        this.functions = Objects.requireNonNull(functions, "functions");
    }

    @Override
    public boolean supports(String resourceArn) {
        return INVOKE.matcher(resourceArn).matches() || FUNCTION.matcher(resourceArn).matches();
    }

    @Override
    public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
        try {
            if (FUNCTION.matcher(resourceArn).matches()) {
                return CompletableFuture.completedFuture(call(resourceArn, parameters));
            }
            JsonNode functionName = parameters.get("FunctionName");
            if (functionName == null || !functionName.isTextual()) {
                throw new StatesRuntimeError("lambda:invoke needs a FunctionName string parameter");
            }
            JsonNode payload = parameters.has("Payload") ? parameters.get("Payload") : Json.MAPPER.createObjectNode();
            JsonNode output = call(functionName.textValue(), payload);
            ObjectNode result = Json.MAPPER.createObjectNode();
            result.put("ExecutedVersion", "$LATEST");
            result.set("Payload", output);
            ObjectNode http = result.putObject("SdkHttpMetadata");
            http.putObject("HttpHeaders").put("X-Amz-Executed-Version", "$LATEST");
            http.put("HttpStatusCode", 200);
            result.putObject("SdkResponseMetadata").put("RequestId", UUID.randomUUID().toString());
            result.put("StatusCode", 200);
            return CompletableFuture.completedFuture(result);
        } catch (AslError e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode call(String nameOrArn, JsonNode payload) {
        Function<JsonNode, JsonNode> function = functions.find(nameOrArn).orElseThrow(() -> new TaskError(
                "Lambda.ResourceNotFoundException", "Function not found: " + nameOrArn
                        + " (Service: Lambda, Status Code: 404, Request ID: " + UUID.randomUUID() + ")"));
        try {
            JsonNode output = function.apply(payload);
            return output == null ? Json.MAPPER.nullNode() : output;
        } catch (RuntimeException e) {
            ObjectNode cause = Json.MAPPER.createObjectNode();
            cause.put("errorMessage", e.getMessage());
            cause.put("errorType", e.getClass().getName());
            throw new TaskError(e.getClass().getName(), Json.write(cause));
        }
    }
}
