package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.StatesTaskFailedError;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The optimized {@code arn:<partition>:states:::states:startExecution} integration, on this engine:
 * <ul>
 *   <li>Request Response ({@code startExecution}): starts the execution and returns
 *       {@code {"ExecutionArn", "StartDate"}};</li>
 *   <li>Run a Job ({@code startExecution.sync:2}, and the older {@code startExecution.sync}): starts it,
 *       reports StartExecution's answer as the Task's {@code TaskSubmitted} ({@link #submitted}), and
 *       completes when it has closed, with DescribeExecution's fields in upper camel case
 *       ({@code ExecutionArn, Input, InputDetails, Name, Output, OutputDetails, StartDate,
 *       StateMachineArn, Status, StopDate}), {@code Input} and {@code Output} as JSON with
 *       {@code :2} and as strings without; a child that did not succeed fails the Task with
 *       {@code States.TaskFailed} and those fields (its {@code Error} and {@code Cause} among them) as
 *       the cause. The parent's Task waits on no thread meanwhile.</li>
 * </ul>
 * {@code Input} may be an object (serialized) or a string (used as is). Failures to start carry the
 * integration's error names, e.g. {@code StepFunctions.ExecutionAlreadyExistsException}; a start
 * with the same name and input as a running execution returns that execution, as in AWS.
 */
public final class StartExecutionTaskResource implements TaskResource {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String CONTENT_TYPE = "application/x-amz-json-1.0";
    /** An HTTP {@code Date} header (RFC 7231's IMF-fixdate). */
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private final Supplier<StepFunctionsEngine> engine;

    /** Takes a supplier because the interpreter that holds this resource is built before the engine. */
    public StartExecutionTaskResource(Supplier<StepFunctionsEngine> engine) {
        this.engine = engine;
    }

    /** How the Task waits: not at all, for the child with its payloads as text, or as JSON. */
    private enum Pattern { REQUEST_RESPONSE, SYNC, SYNC_JSON }

    @Override
    public boolean supports(String resourceArn) {
        return pattern(resourceArn) != null;
    }

    private static Pattern pattern(String resourceArn) {
        String[] parts = resourceArn.split(":", -1);
        if (parts.length < 7 || parts.length > 8 || !"arn".equals(parts[0]) || !"states".equals(parts[2])
                || !parts[3].isEmpty() || !parts[4].isEmpty() || !"states".equals(parts[5])) {
            return null;
        }
        if (parts.length == 8) {
            return "startExecution.sync".equals(parts[6]) && "2".equals(parts[7]) ? Pattern.SYNC_JSON : null;
        }
        return switch (parts[6]) {
            case "startExecution" -> Pattern.REQUEST_RESPONSE;
            case "startExecution.sync" -> Pattern.SYNC;
            default -> null;
        };
    }

    @Override
    public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
        return invoke(resourceArn, parameters, context, answer -> { });
    }

    @Override
    public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context,
            Consumer<JsonNode> submitted) {
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
            Pattern pattern = pattern(resourceArn);
            if (pattern != Pattern.REQUEST_RESPONSE) {
                return engine.get().startExecutionAndWait(machine.textValue(), name.isTextual() ? name.textValue() : null,
                        inputText, started -> submitted.accept(submitted(started))).handle((closed, failure) -> {
                            if (failure != null) {
                                throw new CompletionException(asTaskFailure(failure));
                            }
                            ObjectNode result = describe(closed, pattern == Pattern.SYNC_JSON);
                            if (closed.status() != ExecutionStatus.SUCCEEDED) {
                                throw new CompletionException(new StatesTaskFailedError(result.toString()));
                            }
                            return (JsonNode) result;
                        });
            }
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

    /**
     * StartExecution's answer as the {@code .sync} integration records it in {@code TaskSubmitted} (AWS,
     * recorded in LocalStack's {@code test_start_execution_sync}): the SDK's response, {@code ExecutionArn}
     * and {@code StartDate}, with what the SDK kept of the HTTP exchange, {@code SdkHttpMetadata} (the
     * answer's headers, those the Step Functions endpoint sends, and its status) and
     * {@code SdkResponseMetadata} (the request id). The values are this engine's: the length of the answer
     * its API writes for this start, the start's date, a request id of its own.
     */
    static ObjectNode submitted(StartedExecution started) {
        String requestId = UUID.randomUUID().toString();
        String length;
        try {
            length = Integer.toString(MAPPER.writeValueAsBytes(started.response()).length);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("A StartExecution answer always serializes", e);
        }
        String date = HTTP_DATE.format(started.startDate());
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("ExecutionArn", started.executionArn());
        ObjectNode http = answer.putObject("SdkHttpMetadata");
        ObjectNode all = http.putObject("AllHttpHeaders");
        all.putArray("x-amzn-RequestId").add(requestId);
        all.putArray("connection").add("keep-alive");
        all.putArray("Content-Length").add(length);
        all.putArray("Date").add(date);
        all.putArray("Content-Type").add(CONTENT_TYPE);
        ObjectNode headers = http.putObject("HttpHeaders");
        headers.put("connection", "keep-alive");
        headers.put("Content-Length", length);
        headers.put("Content-Type", CONTENT_TYPE);
        headers.put("Date", date);
        headers.put("x-amzn-RequestId", requestId);
        http.put("HttpStatusCode", 200);
        answer.putObject("SdkResponseMetadata").put("RequestId", requestId);
        answer.put("StartDate", started.startDate().toEpochMilli());
        return answer;
    }

    /** A closed child as the {@code .sync} integration returns it. */
    private static ObjectNode describe(ExecutionDescription child, boolean json) {
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        result.put("ExecutionArn", child.executionArn());
        result.set("Input", payload(child.input(), json));
        result.putObject("InputDetails").put("Included", true);
        result.put("Name", child.name());
        if (child.output() != null) {
            result.set("Output", payload(child.output(), json));
            result.putObject("OutputDetails").put("Included", true);
        }
        if (child.error() != null) {
            result.put("Error", child.error());
        }
        if (child.cause() != null) {
            result.put("Cause", child.cause());
        }
        result.put("StartDate", child.startDate().toEpochMilli());
        result.put("StateMachineArn", child.stateMachineArn());
        result.put("Status", child.status().name());
        if (child.stopDate() != null) {
            result.put("StopDate", child.stopDate().toEpochMilli());
        }
        return result;
    }

    private static JsonNode payload(String text, boolean json) {
        if (!json) {
            return JsonNodeFactory.instance.textNode(text);
        }
        try {
            return MAPPER.readTree(text);
        } catch (java.io.IOException e) {
            return JsonNodeFactory.instance.textNode(text);
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
