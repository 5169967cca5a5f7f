package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The function of a recorded case, as a Java handler: it keeps every event it is given in the JSON the
 * function receives ({@link LambdaRecordJson}, written out and read back, so numbers have the types a
 * function parsing the payload sees), then answers as the recording test's Python function did.
 *
 * <p>A Python answer becomes the {@link StreamsEventResponse} Lambda would read the same way: {@code null}
 * or a list (not an object, so it reports nothing) is no response; an object's {@code batchItemFailures}
 * becomes the failure list, an absent or null one none; each failure's {@code itemIdentifier} is kept as
 * text (a number as its digits, which is no sequence number of the batch either), an absent or null one
 * as {@code null}.
 */
final class RecordedFunction implements RequestHandler<DynamodbEvent, StreamsEventResponse> {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode behaviour;
    private final List<JsonNode> events = new CopyOnWriteArrayList<>();

    RecordedFunction(JsonNode behaviour) {
        this.behaviour = behaviour;
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        ObjectNode payload = JSON.createObjectNode();
        ArrayNode records = payload.putArray("Records");
        event.getRecords().forEach(record -> records.add(LambdaRecordJson.toJson(record)));
        events.add(asReceived(payload));
        if (behaviour.has("raises")) {
            throw new IllegalStateException(behaviour.get("raises").asText());
        }
        if (behaviour.has("reportsFailureWhere")) {
            return reportFailuresWhere(event.getRecords(), behaviour.get("reportsFailureWhere"));
        }
        if (behaviour.has("returns")) {
            return response(behaviour.get("returns"));
        }
        return null;
    }

    /** Every event given so far, in order, as the function received it. */
    List<JsonNode> events() {
        return List.copyOf(events);
    }

    private static StreamsEventResponse reportFailuresWhere(List<DynamodbStreamRecord> records, JsonNode condition) {
        List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>();
        for (DynamodbStreamRecord record : records) {
            JsonNode image = record.getDynamodb().getNewImage() == null ? JSON.createObjectNode()
                    : LambdaRecordJson.toJson(record.getDynamodb().getNewImage());
            boolean matches = true;
            for (Map.Entry<String, JsonNode> wanted : (Iterable<Map.Entry<String, JsonNode>>) condition::fields) {
                matches &= wanted.getValue().equals(image.get(wanted.getKey()));
            }
            if (matches) {
                failures.add(new StreamsEventResponse.BatchItemFailure(record.getDynamodb().getSequenceNumber()));
            }
        }
        return new StreamsEventResponse(failures);
    }

    private static StreamsEventResponse response(JsonNode answer) {
        if (!answer.isObject()) {
            return null;
        }
        JsonNode failures = answer.get("batchItemFailures");
        if (failures == null || failures.isNull()) {
            return new StreamsEventResponse();
        }
        List<StreamsEventResponse.BatchItemFailure> list = new ArrayList<>();
        for (JsonNode failure : failures) {
            JsonNode identifier = failure.get("itemIdentifier");
            list.add(new StreamsEventResponse.BatchItemFailure(identifier == null || identifier.isNull() ? null : identifier.asText()));
        }
        return new StreamsEventResponse(list);
    }

    private static JsonNode asReceived(JsonNode payload) {
        try {
            return JSON.readTree(JSON.writeValueAsString(payload));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the event does not serialize: " + e.getMessage(), e);
        }
    }
}
