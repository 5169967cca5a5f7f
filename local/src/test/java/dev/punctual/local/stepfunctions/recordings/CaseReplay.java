package dev.punctual.local.stepfunctions.recordings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.sfn.model.CreateStateMachineResponse;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.GetExecutionHistoryRequest;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.SfnException;
import software.amazon.awssdk.services.sfn.model.StartSyncExecutionResponse;
import software.amazon.awssdk.services.sfn.model.StateMachineType;

/**
 * Replays one recorded case on a {@link ReplayRig} and lists where our answers differ from AWS's.
 *
 * <p>Each recorded execution of the case is run again from its recorded input: a
 * {@code GetExecutionHistory} (compared event by event: type and order, state name, input, output,
 * parameters, error and cause), a list of {@code cases} ({@code {input, output}} of executions that
 * succeeded), a {@code StartSyncExecution} or a {@code DescribeExecution} answer (status, input, output,
 * error, cause, and the billing of a synchronous Express execution).
 */
final class CaseReplay {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> COMPARED_DETAILS = Set.of("name", "input", "output", "parameters", "error", "cause");
    private static final Set<String> COMPARED_DESCRIPTION = Set.of("status", "input", "output", "error", "cause",
            "billingDetails");
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final ReplayRig rig;
    private final RecordedCase recordedCase;
    private final List<String> differences = new ArrayList<>();
    private final Map<String, String> placeholders = new HashMap<>();
    private final Map<String, String> keyValues = new HashMap<>();
    private final Map<String, String> texts = new HashMap<>();

    CaseReplay(ReplayRig rig, RecordedCase recordedCase) {
        this.rig = rig;
        this.recordedCase = recordedCase;
    }

    /** The differences found; empty when every execution of the case answered as AWS did. */
    List<String> replay() {
        JsonNode entry = recordedCase.entry();
        int n = NAMES.incrementAndGet();
        placeholders.put(ReplayRig.REGION, "<region>");
        placeholders.put("arn:aws:", "arn:<partition>:");
        placeholders.put(ReplayRig.ROLE_ARN, entry.path("role").asText("snf_role_arn"));
        entry.path("keyValues").fields().forEachRemaining(e -> keyValues.put(e.getKey(), e.getValue().asText()));
        entry.path("texts").fields().forEachRemaining(e -> texts.put(e.getKey(), e.getValue().asText()));
        createTables(entry.path("tables"), n);
        for (Iterator<Map.Entry<String, String>> it = recordedCase.children().entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, String> child = it.next();
            String name = "child" + n + "x" + placeholders.size();
            createStateMachine(name, child.getValue(), null);
            placeholders.put(name, child.getKey());
        }
        int execution = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = recordedCase.recorded().fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> recorded = it.next();
            String key = recorded.getKey();
            JsonNode value = recorded.getValue();
            if (value.has("events")) {
                replayHistory(key, value, n, execution++);
            } else if ("cases".equals(key)) {
                for (JsonNode one : value) {
                    replayCase(one, n, execution++);
                }
            } else if (value.has("status") && value.has("executionArn")) {
                replayDescription(key, value, n, execution++);
            }
        }
        if (execution == 0) {
            differences.add("the recording holds no execution this replay knows how to run: "
                    + iterable(recordedCase.recorded().fieldNames()));
        }
        return differences;
    }

    private void createTables(JsonNode tables, int n) {
        for (JsonNode table : tables) {
            String name = "punctual_replay_" + n + "_" + placeholders.size();
            placeholders.put(name, table.path("placeholder").asText());
            if (!table.path("create").asBoolean(true)) {
                continue;
            }
            String hash = table.path("hashKey").asText("id");
            List<AttributeDefinition> attributes = new ArrayList<>(List.of(AttributeDefinition.builder()
                    .attributeName(hash).attributeType(ScalarAttributeType.S).build()));
            List<KeySchemaElement> keys = new ArrayList<>(List.of(KeySchemaElement.builder()
                    .attributeName(hash).keyType(KeyType.HASH).build()));
            if (table.has("rangeKey")) {
                String range = table.path("rangeKey").asText();
                attributes.add(AttributeDefinition.builder().attributeName(range).attributeType(ScalarAttributeType.S).build());
                keys.add(KeySchemaElement.builder().attributeName(range).keyType(KeyType.RANGE).build());
            }
            rig.dynamoDb().createTable(b -> b.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(attributes).keySchema(keys));
        }
    }

    private String createStateMachine(String name, String template, JsonNode input) {
        String definition = template;
        for (Iterator<Map.Entry<String, JsonNode>> it = recordedCase.entry().path("replace").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> replace = it.next();
            definition = definition.replace(replace.getKey(), replace.getValue().asText());
        }
        if (input != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = recordedCase.entry().path("replaceWithInput").fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> replace = it.next();
                JsonNode value = input.path(replace.getValue().asText());
                definition = definition.replace(replace.getKey(), value.isMissingNode() ? "null" : value.toString());
            }
        }
        boolean express = "EXPRESS".equals(recordedCase.entry().path("type").asText());
        String compact = definition;
        CreateStateMachineResponse created = rig.sfn().createStateMachine(b -> b.name(name).definition(compact)
                .roleArn(ReplayRig.ROLE_ARN).type(express ? StateMachineType.EXPRESS : StateMachineType.STANDARD));
        return created.stateMachineArn();
    }

    /** The input to send: the manifest's when the recording's was normalised past use, else the recording's. */
    private String input(JsonNode recordedInput, int execution) {
        JsonNode inputs = recordedCase.entry().get("inputs");
        JsonNode input = inputs != null ? inputs.get(execution) : recordedInput;
        if (input == null || input.isMissingNode() || input.isNull()) {
            return "{}";
        }
        return normalisation().concrete(input.isTextual() ? input.textValue() : input.toString());
    }

    private Normalisation normalisation() {
        return new Normalisation(placeholders, keyValues, texts);
    }

    private String start(String machine, int n, int execution, String input, String namePlaceholder) {
        String arn = createStateMachine(machine, recordedCase.template(), parse(input));
        placeholders.put(machine, "<ArnPart_0idx>");
        String name = "exec" + n + "x" + execution;
        placeholders.put(name, namePlaceholder);
        try {
            return rig.sfn().startExecution(b -> b.stateMachineArn(arn).name(name).input(input)).executionArn();
        } catch (SfnException e) {
            differences.add("StartExecution was refused: " + e.awsErrorDetails().errorCode() + ": "
                    + e.awsErrorDetails().errorMessage());
            return null;
        }
    }

    private void replayHistory(String key, JsonNode recorded, int n, int execution) {
        JsonNode events = recorded.path("events");
        JsonNode started = events.path(0).path("executionStartedEventDetails");
        String input = input(started.path("input"), execution);
        String machine = "machine" + n + "x" + execution;
        String arn = startOrRefuse(machine, n, execution, input,
                recordedCase.entry().path("executionName").asText("<ExecArnPart_" + execution + "idx>"));
        if (arn == null) {
            return;
        }
        rig.runUntil(() -> !isRunning(arn), recordedCase.id());
        List<HistoryEvent> ours = new ArrayList<>();
        rig.sfn().getExecutionHistoryPaginator(GetExecutionHistoryRequest.builder().executionArn(arn).build())
                .events().forEach(ours::add);
        ArrayNode oursJson = JsonNodeFactory.instance.arrayNode();
        ours.forEach(e -> oursJson.add(ReplayRig.json(e)));
        JsonNode normalisedOurs = normalisation().normalise(oursJson);
        if (recordedCase.entry().path("parallelEventsSorted").asBoolean()) {
            ParallelBranchEvents.markAsRecorded((ArrayNode) normalisedOurs);
        }
        compareEvents(key, project(events), project(normalisedOurs));
    }

    private String startOrRefuse(String machine, int n, int execution, String input, String namePlaceholder) {
        try {
            return start(machine, n, execution, input, namePlaceholder);
        } catch (SfnException e) {
            differences.add("CreateStateMachine was refused: " + e.awsErrorDetails().errorCode() + ": "
                    + e.awsErrorDetails().errorMessage());
            return null;
        }
    }

    private boolean isRunning(String executionArn) {
        return rig.engine().describeExecution(executionArn).status() == ExecutionStatus.RUNNING;
    }

    private void replayCase(JsonNode recorded, int n, int execution) {
        String input = input(recorded.path("input"), execution);
        String arn = startOrRefuse("machine" + n + "x" + execution, n, execution, input, "<ExecArnPart_0idx>");
        if (arn == null) {
            return;
        }
        rig.runUntil(() -> !isRunning(arn), recordedCase.id());
        DescribeExecutionResponse described = rig.sfn().describeExecution(b -> b.executionArn(arn));
        JsonNode ours = normalisation().normalise(JsonNodeFactory.instance.objectNode()
                .<ObjectNode>set("input", parse(input))
                .set("output", described.output() == null ? JsonNodeFactory.instance.nullNode() : parse(described.output())));
        JsonNode theirs = JsonNodeFactory.instance.objectNode()
                .<ObjectNode>set("input", recordedCase.entry().has("inputs") ? normalisation().normalise(parse(input))
                        : recorded.path("input"))
                .set("output", recorded.path("output"));
        if (!theirs.equals(ours)) {
            differences.add("case " + execution + ": AWS " + theirs + ", ours " + ours
                    + (described.error() == null ? "" : " (" + described.error() + ": " + described.cause() + ")"));
        }
    }

    private void replayDescription(String key, JsonNode recorded, int n, int execution) {
        String input = input(recorded.path("input"), execution);
        String machine = "machine" + n + "x" + execution;
        JsonNode ours;
        try {
            if (key.contains("sync")) {
                String arn = createStateMachine(machine, recordedCase.template(), parse(input));
                placeholders.put(machine, "<ArnPart_0idx>");
                String name = "exec" + n + "x" + execution;
                placeholders.put(name, "<SyncExecArn_Part1_0idx>");
                CompletableFuture<StartSyncExecutionResponse> call = CompletableFuture.supplyAsync(
                        () -> rig.sfn().startSyncExecution(b -> b.stateMachineArn(arn).name(name).input(input)));
                rig.runUntil(call::isDone, recordedCase.id());
                StartSyncExecutionResponse response = call.join();
                String[] parts = response.executionArn().split(":");
                placeholders.put(parts[parts.length - 1], "<SyncExecArn_Part2_0idx>");
                ours = ReplayRig.json(response);
            } else {
                String arn = start(machine, n, execution, input,
                        recordedCase.entry().path("executionName").asText("<ExecArnPart_0idx>"));
                if (arn == null) {
                    return;
                }
                rig.runUntil(() -> !isRunning(arn), recordedCase.id());
                ours = ReplayRig.json(rig.sfn().describeExecution(b -> b.executionArn(arn)));
            }
        } catch (SfnException e) {
            differences.add(key + " was refused: " + e.awsErrorDetails().errorCode() + ": "
                    + e.awsErrorDetails().errorMessage());
            return;
        } catch (java.util.concurrent.CompletionException e) {
            differences.add(key + " was refused: " + e.getCause());
            return;
        }
        JsonNode normalised = normalisation().normalise(ours);
        ObjectNode theirsProjected = JsonNodeFactory.instance.objectNode();
        ObjectNode oursProjected = JsonNodeFactory.instance.objectNode();
        for (String field : COMPARED_DESCRIPTION) {
            if (recorded.has(field)) {
                theirsProjected.set(field, recorded.get(field));
            }
            if (normalised.has(field)) {
                oursProjected.set(field, normalised.get(field));
            }
        }
        if (!theirsProjected.equals(oursProjected)) {
            differences.add(key + ": AWS " + theirsProjected + ", ours " + oursProjected);
        }
    }

    /** Each event as its type and the details compared. */
    /**
     * A payload holding a JSON array stays text in the recordings (the snapshot parses objects only), with
     * the spacing of the text AWS was sent; both sides are compared as JSON values, not as spacing.
     */
    private static JsonNode arraysAsJson(JsonNode value) {
        if (value.isTextual() && value.textValue().strip().startsWith("[")) {
            try {
                JsonNode parsed = MAPPER.readTree(value.textValue());
                if (parsed != null && parsed.isArray()) {
                    return parsed;
                }
            } catch (IOException notJson) {
                return value;
            }
        }
        return value;
    }

    private static List<JsonNode> project(JsonNode events) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode event : events) {
            ObjectNode projected = JsonNodeFactory.instance.objectNode();
            projected.put("type", event.path("type").asText());
            if (event.path("id").isArray()) {
                projected.put("branch", true);
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = event.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (field.getKey().endsWith("EventDetails")) {
                    for (Iterator<Map.Entry<String, JsonNode>> d = field.getValue().fields(); d.hasNext(); ) {
                        Map.Entry<String, JsonNode> detail = d.next();
                        if (COMPARED_DETAILS.contains(detail.getKey())) {
                            projected.set(detail.getKey(), arraysAsJson(detail.getValue()));
                        }
                    }
                }
            }
            out.add(projected);
        }
        return out;
    }

    private void compareEvents(String key, List<JsonNode> theirs, List<JsonNode> ours) {
        ParallelBranchEvents.sortRuns(theirs);
        ParallelBranchEvents.sortRuns(ours);
        for (int i = 0; i < Math.max(theirs.size(), ours.size()); i++) {
            JsonNode a = i < theirs.size() ? theirs.get(i) : null;
            JsonNode b = i < ours.size() ? ours.get(i) : null;
            if (a == null || !a.equals(b)) {
                differences.add(key + " event " + (i + 1) + ": AWS " + a + ", ours " + b
                        + " (AWS " + theirs.size() + " events, ours " + ours.size() + ")");
                return;
            }
        }
    }

    private static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("Not JSON: " + json, e);
        }
    }

    private static String iterable(Iterator<String> names) {
        List<String> out = new ArrayList<>();
        names.forEachRemaining(out::add);
        return out.toString();
    }
}
