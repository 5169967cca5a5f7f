package dev.punctual.local.stepfunctions.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.executions.ErrorCode;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stepfunctions.executions.HistoryEvent;
import dev.punctual.local.stepfunctions.executions.Page;
import dev.punctual.local.stepfunctions.executions.StateMachineDescription;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stepfunctions.executions.SyncExecutionResult;
import dev.punctual.local.stepfunctions.quotas.Throttles;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The Step Functions actions of the AWS JSON 1.0 protocol, transport aside: a target
 * ({@code AWSStepFunctions.<Action>}) and a JSON body in, a status and JSON body out. Timestamps are
 * epoch seconds with a millisecond fraction; errors are {@code {"__type", "message"}}. Actions past
 * their token bucket fail with {@code ThrottlingException} before anything else is looked at.
 */
final class StepFunctionsApi {

    static final String TARGET_PREFIX = "AWSStepFunctions.";
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final int DEFAULT_PAGE = 100;
    private static final int MAX_PAGE = 1000;

    private final StepFunctionsEngine engine;
    private final Throttles throttles;
    private final Map<String, Function<RequestFields, ObjectNode>> actions;

    /** A response: HTTP status and JSON body; {@code errorType} is set for errors. */
    record Response(int status, byte[] body, String errorType) {
    }

    StepFunctionsApi(StepFunctionsEngine engine, Throttles throttles) {
        this.engine = engine;
        this.throttles = throttles;
        this.actions = Map.ofEntries(
                Map.entry("CreateStateMachine", this::createStateMachine),
                Map.entry("DescribeStateMachine", this::describeStateMachine),
                Map.entry("ListStateMachines", this::listStateMachines),
                Map.entry("UpdateStateMachine", this::updateStateMachine),
                Map.entry("DeleteStateMachine", this::deleteStateMachine),
                Map.entry("StartExecution", this::startExecution),
                Map.entry("StartSyncExecution", this::startSyncExecution),
                Map.entry("StopExecution", this::stopExecution),
                Map.entry("DescribeExecution", this::describeExecution),
                Map.entry("ListExecutions", this::listExecutions),
                Map.entry("GetExecutionHistory", this::getExecutionHistory));
    }

    Response handle(String target, byte[] body) {
        try {
            String action = target != null && target.startsWith(TARGET_PREFIX)
                    ? target.substring(TARGET_PREFIX.length()) : null;
            Function<RequestFields, ObjectNode> handler = action == null ? null : actions.get(action);
            if (handler == null) {
                throw new StepFunctionsException(ErrorCode.UNKNOWN_OPERATION, "Unknown operation: X-Amz-Target '"
                        + target + "'; supported: " + TARGET_PREFIX + "{" + String.join(",",
                        new java.util.TreeSet<>(actions.keySet())) + "}");
            }
            if (!throttles.admitApiCall(action)) {
                throw new StepFunctionsException(ErrorCode.THROTTLING, "Rate exceeded: " + action
                        + " is throttled (the local runtime enforces Step Functions' quotas); retry with backoff");
            }
            return new Response(200, MAPPER.writeValueAsBytes(handler.apply(new RequestFields(parse(body)))), null);
        } catch (StepFunctionsException e) {
            return error(e.code(), e.getMessage());
        } catch (IOException e) {
            return error(ErrorCode.INTERNAL, "Could not write the response: " + e.getMessage());
        }
    }

    static Response error(ErrorCode code, String message) {
        ObjectNode body = JSON.objectNode();
        body.put("__type", code.awsName());
        body.put("message", message);
        try {
            return new Response(code == ErrorCode.INTERNAL ? 500 : 400, MAPPER.writeValueAsBytes(body), code.awsName());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("An error body always serializes", e);
        }
    }

    private static JsonNode parse(byte[] body) {
        if (body.length == 0) {
            return JSON.objectNode();
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (IOException e) {
            String detail = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
            throw new StepFunctionsException(ErrorCode.SERIALIZATION, "The request body is not valid JSON: " + detail);
        }
        if (node == null || !node.isObject()) {
            throw new StepFunctionsException(ErrorCode.SERIALIZATION, "The request body must be a JSON object");
        }
        return node;
    }

    private ObjectNode createStateMachine(RequestFields in) {
        StateMachineDescription sm = engine.createStateMachine(in.requiredString("name"),
                in.requiredString("definition"), in.requiredString("roleArn"), in.optionalString("type"),
                in.logging());
        ObjectNode out = JSON.objectNode();
        out.put("stateMachineArn", sm.stateMachineArn());
        out.set("creationDate", timestamp(sm.creationDate()));
        return out;
    }

    private ObjectNode describeStateMachine(RequestFields in) {
        StateMachineDescription sm = engine.describeStateMachine(in.requiredString("stateMachineArn"));
        ObjectNode out = JSON.objectNode();
        out.put("stateMachineArn", sm.stateMachineArn());
        out.put("name", sm.name());
        out.put("status", sm.status());
        out.put("definition", sm.definition());
        out.put("roleArn", sm.roleArn());
        out.put("type", sm.type());
        out.set("creationDate", timestamp(sm.creationDate()));
        ObjectNode logging = out.putObject("loggingConfiguration");
        logging.put("level", sm.logging().level());
        logging.put("includeExecutionData", sm.logging().includeExecutionData());
        out.putObject("tracingConfiguration").put("enabled", false);
        return out;
    }

    private ObjectNode listStateMachines(RequestFields in) {
        Page<StateMachineDescription> page = engine.listStateMachines(pageSize(in), in.optionalString("nextToken"));
        ObjectNode out = JSON.objectNode();
        ArrayNode items = out.putArray("stateMachines");
        for (StateMachineDescription sm : page.items()) {
            ObjectNode item = items.addObject();
            item.put("stateMachineArn", sm.stateMachineArn());
            item.put("name", sm.name());
            item.put("type", sm.type());
            item.set("creationDate", timestamp(sm.creationDate()));
        }
        page.next().ifPresent(token -> out.put("nextToken", token));
        return out;
    }

    private ObjectNode updateStateMachine(RequestFields in) {
        Instant updated = engine.updateStateMachine(in.requiredString("stateMachineArn"),
                in.optionalString("definition"), in.optionalString("roleArn"));
        ObjectNode out = JSON.objectNode();
        out.set("updateDate", timestamp(updated));
        return out;
    }

    private ObjectNode deleteStateMachine(RequestFields in) {
        engine.deleteStateMachine(in.requiredString("stateMachineArn"));
        return JSON.objectNode();
    }

    private ObjectNode startExecution(RequestFields in) {
        return join(engine.startExecution(in.requiredString("stateMachineArn"), in.optionalString("name"),
                in.optionalString("input"))).response();
    }

    /**
     * StartSyncExecution: answers once the Express execution has closed, with DescribeExecution's fields
     * (an {@code outputDetails} whether or not there is an output, as AWS answers a failed one) and its
     * {@code billingDetails}. The request holds a worker of the server until then, as AWS holds the
     * connection (an Express execution lasts at most five minutes).
     */
    private ObjectNode startSyncExecution(RequestFields in) {
        SyncExecutionResult result = join(engine.startSyncExecution(in.requiredString("stateMachineArn"),
                in.optionalString("name"), in.optionalString("input")));
        ExecutionDescription e = result.execution();
        ObjectNode out = JSON.objectNode();
        out.put("executionArn", e.executionArn());
        out.put("stateMachineArn", e.stateMachineArn());
        out.put("name", e.name());
        out.set("startDate", timestamp(e.startDate()));
        out.set("stopDate", timestamp(e.stopDate()));
        out.put("status", e.status().name());
        if (e.error() != null) {
            out.put("error", e.error());
        }
        if (e.cause() != null) {
            out.put("cause", e.cause());
        }
        out.put("input", e.input());
        out.putObject("inputDetails").put("included", true);
        if (e.output() != null) {
            out.put("output", e.output());
        }
        out.putObject("outputDetails").put("included", true);
        ObjectNode billing = out.putObject("billingDetails");
        billing.put("billedMemoryUsedInMB", result.billedMemoryMegabytes());
        billing.put("billedDurationInMilliseconds", result.billedDurationMillis());
        return out;
    }

    private ObjectNode stopExecution(RequestFields in) {
        Instant stopped = join(engine.stopExecution(in.requiredString("executionArn"), in.optionalString("error"),
                in.optionalString("cause")));
        ObjectNode out = JSON.objectNode();
        out.set("stopDate", timestamp(stopped));
        return out;
    }

    private ObjectNode describeExecution(RequestFields in) {
        ExecutionDescription e = engine.describeExecution(in.requiredString("executionArn"));
        ObjectNode out = JSON.objectNode();
        out.put("executionArn", e.executionArn());
        out.put("stateMachineArn", e.stateMachineArn());
        out.put("name", e.name());
        out.put("status", e.status().name());
        out.set("startDate", timestamp(e.startDate()));
        if (e.stopDate() != null) {
            out.set("stopDate", timestamp(e.stopDate()));
        }
        out.put("input", e.input());
        out.putObject("inputDetails").put("included", true);
        if (e.output() != null) {
            out.put("output", e.output());
            out.putObject("outputDetails").put("included", true);
        }
        if (e.error() != null) {
            out.put("error", e.error());
        }
        if (e.cause() != null) {
            out.put("cause", e.cause());
        }
        return out;
    }

    private ObjectNode listExecutions(RequestFields in) {
        String filter = in.optionalString("statusFilter");
        ExecutionStatus status = null;
        if (filter != null) {
            try {
                status = ExecutionStatus.valueOf(filter);
            } catch (IllegalArgumentException e) {
                throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value '"
                        + filter + "' at 'statusFilter' failed to satisfy constraint: Member must satisfy enum"
                        + " value set: [RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED]");
            }
        }
        Page<ExecutionSummary> page = engine.listExecutions(in.requiredString("stateMachineArn"), status,
                pageSize(in), in.optionalString("nextToken"));
        ObjectNode out = JSON.objectNode();
        ArrayNode items = out.putArray("executions");
        for (ExecutionSummary e : page.items()) {
            ObjectNode item = items.addObject();
            item.put("executionArn", e.executionArn());
            item.put("stateMachineArn", e.stateMachineArn());
            item.put("name", e.name());
            item.put("status", e.status().name());
            item.set("startDate", timestamp(e.startDate()));
            if (e.stopDate() != null) {
                item.set("stopDate", timestamp(e.stopDate()));
            }
        }
        page.next().ifPresent(token -> out.put("nextToken", token));
        return out;
    }

    private ObjectNode getExecutionHistory(RequestFields in) {
        boolean includeData = in.optionalBoolean("includeExecutionData", true);
        Page<HistoryEvent> page = engine.getExecutionHistory(in.requiredString("executionArn"), pageSize(in),
                in.optionalString("nextToken"), in.optionalBoolean("reverseOrder", false));
        ObjectNode out = JSON.objectNode();
        ArrayNode events = out.putArray("events");
        for (HistoryEvent event : page.items()) {
            ObjectNode item = events.addObject();
            item.set("timestamp", timestamp(event.timestamp()));
            item.put("type", event.type());
            item.put("id", event.id());
            item.put("previousEventId", event.previousEventId());
            ObjectNode details = details(event.details(), includeData);
            if (!details.isEmpty() || "ExecutionAborted".equals(event.type())) {
                item.set(event.detailsMemberName(), details);
            }
        }
        page.next().ifPresent(token -> out.put("nextToken", token));
        return out;
    }

    /** AWS's details shape: payloads flagged untruncated, and left out without includeExecutionData. */
    private static ObjectNode details(ObjectNode raw, boolean includeData) {
        ObjectNode details = JSON.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = raw.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = field.getKey();
            boolean payload = "input".equals(name) || "output".equals(name) || "parameters".equals(name);
            if (payload && !includeData) {
                continue;
            }
            JsonNode value = field.getValue();
            details.set(name, payload && !value.isTextual() ? JSON.textNode(value.toString()) : value);
            if ("input".equals(name) || "output".equals(name)) {
                details.putObject(name + "Details").put("truncated", false);
            }
        }
        return details;
    }

    private static int pageSize(RequestFields in) {
        int max = in.optionalInt("maxResults", 0, 0, MAX_PAGE);
        return max == 0 ? DEFAULT_PAGE : max;
    }

    private static JsonNode timestamp(Instant instant) {
        return JSON.numberNode(BigDecimal.valueOf(instant.toEpochMilli(), 3));
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof StepFunctionsException sfe) {
                throw sfe;
            }
            throw new StepFunctionsException(ErrorCode.INTERNAL, String.valueOf(e.getCause()));
        }
    }
}
