package dev.punctual.local.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.statemachine.ExpiryEvents;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.function.IntConsumer;

/**
 * EventBridge's {@code PutEvents} (AWS JSON 1.1, {@code X-Amz-Target: AWSEvents.PutEvents}): checks
 * each entry as EventBridge does, stores the accepted ones as the event a rule's target would
 * receive, and answers per entry: an {@code EventId}, or an {@code ErrorCode} and {@code ErrorMessage}
 * with {@code FailedEntryCount} counting them. Every bus name is accepted: locally all buses are one.
 */
public final class PutEventsApi {

    /** The only operation served. */
    public static final String TARGET = "AWSEvents.PutEvents";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final EventStore store;
    private final PutEventsFaults faults;
    private final Clock clock;
    private final String region;
    private final String account;
    private final IntConsumer accepted;

    /**
     * @param accepted hears the size of each accepted entry (what EventBridge bills by)
     */
    public PutEventsApi(EventStore store, PutEventsFaults faults, Clock clock, String region, String account,
            IntConsumer accepted) {
        this.accepted = accepted;
        this.store = store;
        this.faults = faults;
        this.clock = clock;
        this.region = region;
        this.account = account;
    }

    /** An HTTP answer: status, body, and the error type header's value for errors. */
    public record Response(int status, byte[] body, String errorType) {
    }

    /** Answers one request. */
    public Response handle(String target, byte[] body) {
        if (!TARGET.equals(target)) {
            return error("UnknownOperationException", "The local EventBridge endpoint serves " + TARGET + " only, not " + target);
        }
        JsonNode request;
        try {
            request = JSON.readTree(body);
        } catch (IOException e) {
            return error("ValidationException", "The request body is not JSON");
        }
        JsonNode entries = request == null ? null : request.get("Entries");
        if (entries == null || !entries.isArray() || entries.isEmpty() || entries.size() > ExpiryEvents.MAX_ENTRIES_PER_CALL) {
            return error("ValidationException", "1 validation error detected: Value at 'entries' failed to satisfy constraint:"
                    + " Member must have length between 1 and " + ExpiryEvents.MAX_ENTRIES_PER_CALL);
        }
        ObjectNode response = JSON.createObjectNode();
        ArrayNode results = response.putArray("Entries");
        int failed = 0;
        for (JsonNode entry : entries) {
            ObjectNode result = results.addObject();
            String problem = problem(entry);
            if (problem == null && faults.refuseNext()) {
                result.put("ErrorCode", PutEventsFaults.INTERNAL_FAILURE);
                result.put("ErrorMessage", "Injected failure: the local runtime refuses this entry to exercise retries");
                failed++;
            } else if (problem != null) {
                result.put("ErrorCode", problem.startsWith("Detail") ? "MalformedDetail" : "InvalidArgument");
                result.put("ErrorMessage", problem);
                failed++;
            } else {
                String id = UUID.randomUUID().toString();
                store.append(entry.path("EventBusName").asText("default"), event(id, entry));
                accepted.accept(size(entry));
                result.put("EventId", id);
            }
        }
        store.flush();
        response.put("FailedEntryCount", failed);
        return new Response(200, write(response), null);
    }

    private static String problem(JsonNode entry) {
        for (String field : new String[] {"Source", "DetailType", "Detail"}) {
            if (!entry.path(field).isTextual() || entry.path(field).asText().isEmpty()) {
                return "Parameter " + field + " is not valid. Reason: " + field + " is a required argument.";
            }
        }
        JsonNode detail;
        try {
            detail = JSON.readTree(entry.get("Detail").asText());
        } catch (IOException e) {
            return "Detail is malformed.";
        }
        if (detail == null || !detail.isObject()) {
            return "Detail is malformed: it must be a JSON object.";
        }
        if (size(entry) > ExpiryEvents.MAX_ENTRY_BYTES) {
            return "Parameter Entries is not valid. Reason: entry size of " + size(entry) + " bytes exceeds "
                    + ExpiryEvents.MAX_ENTRY_BYTES;
        }
        if (entry.has("Time") && time(entry.get("Time")) == null) {
            return "Parameter Time is not valid.";
        }
        return null;
    }

    /** An entry's size as EventBridge counts it: Time, Source, DetailType, Detail and each resource. */
    private static int size(JsonNode entry) {
        int size = entry.has("Time") ? ExpiryEvents.TIME_BYTES : 0;
        size += utf8(entry.path("Source").asText()) + utf8(entry.path("DetailType").asText()) + utf8(entry.path("Detail").asText());
        for (JsonNode resource : entry.path("Resources")) {
            size += utf8(resource.asText());
        }
        return size;
    }

    private ObjectNode event(String id, JsonNode entry) {
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "0");
        event.put("id", id);
        event.put("detail-type", entry.get("DetailType").asText());
        event.put("source", entry.get("Source").asText());
        event.put("account", account);
        Instant time = entry.has("Time") ? time(entry.get("Time")) : clock.instant();
        event.put("time", time.truncatedTo(ChronoUnit.SECONDS).toString());
        event.put("region", region);
        ArrayNode resources = event.putArray("resources");
        entry.path("Resources").forEach(resource -> resources.add(resource.asText()));
        try {
            event.set("detail", JSON.readTree(entry.get("Detail").asText()));
        } catch (IOException e) {
            throw new IllegalStateException("a detail checked as JSON did not parse", e);
        }
        return event;
    }

    /** The SDKs send {@code Time} as epoch seconds (AWS JSON's timestamp); ISO text is accepted too. */
    private static Instant time(JsonNode time) {
        try {
            if (time.isNumber()) {
                BigDecimal seconds = time.decimalValue();
                return Instant.ofEpochSecond(seconds.longValue(),
                        seconds.subtract(new BigDecimal(seconds.longValue())).movePointRight(9).longValue());
            }
            return Instant.parse(time.asText());
        } catch (ArithmeticException | DateTimeParseException e) {
            return null;
        }
    }

    private static Response error(String type, String message) {
        ObjectNode body = JSON.createObjectNode();
        body.put("__type", type);
        body.put("message", message);
        return new Response(400, write(body), type);
    }

    private static byte[] write(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }

    private static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
