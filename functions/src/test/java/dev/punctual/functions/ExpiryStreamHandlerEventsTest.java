package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.events.EventEntry;
import dev.punctual.events.EventPublisher;
import dev.punctual.events.RecordingEventBus;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.expiry.MetricSink;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.TestLambdaContext;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The handler's {@code ItemExpired} events on JSON stream fixtures, against a recording bus. */
class ExpiryStreamHandlerEventsTest {

    /** 2026-01-01T00:00:00Z = 1767225600, when the fixtures' records were written. */
    static final Instant WRITTEN = Instant.parse("2026-01-01T00:00:00Z");
    static final String TABLE_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/orders";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FakeExecutions executions = new FakeExecutions();
    private final RecordingEventBus bus = new RecordingEventBus();
    private final List<ExpiryStreamHandler> handlers = new ArrayList<>();

    private ExpiryStreamHandler handler(Instant now, boolean includeOldImage) {
        ExpiryStreamHandler handler = new ExpiryStreamHandler(FunctionParts.builder(Map.of(
                        StreamWiring.ENV_STATE_MACHINE_ARN, ExpiryStreamHandlerTest.STATE_MACHINE,
                        StreamWiring.ENV_TTL_ATTRIBUTE, "ttl",
                        ExpiryEvents.ENV_EVENT_BUS, "orders-events",
                        ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, Boolean.toString(includeOldImage)))
                .executions(executions).clock(Clock.fixed(now, ZoneOffset.UTC)).metrics(MetricSink.DISCARD)
                .eventBus(bus).sleeper(duration -> { }).build());
        handlers.add(handler);
        return handler;
    }

    @AfterEach
    void close() throws Exception {
        for (ExpiryStreamHandler handler : handlers) {
            handler.close();
        }
    }

    private static List<String> failures(StreamsEventResponse response) {
        return response.getBatchItemFailures().stream().map(StreamsEventResponse.BatchItemFailure::getItemIdentifier).toList();
    }

    private static JsonNode detail(EventEntry entry) throws Exception {
        return JSON.readTree(entry.detail());
    }

    @Test
    void nativeTtlRemove_publishesOneEventMarkedNativeTtl() throws Exception {
        StreamsEventResponse response = handler(WRITTEN, false)
                .handleRequest(EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json"), TestLambdaContext.invocation());

        assertThat(failures(response)).isEmpty();
        assertThat(bus.sent()).hasSize(1);
        EventEntry entry = bus.sent().get(0);
        JsonNode detail = detail(entry);
        assertThat(detail.get("expiredBy").asText()).isEqualTo("native-ttl");
        assertThat(detail.get("table").asText()).isEqualTo("orders");
        assertThat(detail.get("key").toString()).isEqualTo("{\"id\":{\"S\":\"a\"}}");
        assertThat(detail.get("ttlAttribute").asText()).isEqualTo("ttl");
        assertThat(detail.get("ttl").asText()).isEqualTo("1767225500");
        assertThat(detail.get("deletedAt").asText()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(detail.get("lagMs").asLong()).isEqualTo(100_000);
        assertThat(detail.get("id").asText()).matches("[a-z2-7]{26}");
        assertThat(detail.has("oldImage")).isFalse();
        assertThat(entry.detail()).doesNotContain("private note");
        assertThat(entry.resources()).containsExactly(TABLE_ARN);
        assertThat(entry.time()).isEqualTo(WRITTEN);
    }

    @Test
    void ourDeleteReadAfterTheTtl_publishesAnEventMarkedPunctual() throws Exception {
        Instant read = Instant.parse("2026-01-01T00:00:30.750Z");

        handler(read, false).handleRequest(EventLoader.loadDynamoDbEvent("events/remove-at-expiry.json"), TestLambdaContext.invocation());

        assertThat(bus.sent()).hasSize(1);
        JsonNode detail = detail(bus.sent().get(0));
        assertThat(detail.get("expiredBy").asText()).isEqualTo("punctual");
        assertThat(detail.get("deletedAt").asText()).isEqualTo("2026-01-01T00:00:30.750Z");
        assertThat(detail.get("lagMs").asLong()).isEqualTo(750);
    }

    @Test
    void applicationDeletes_publishNothing() {
        // remove-at-expiry's TTL is 30 s after WRITTEN: read before it, it was not an expiry.
        handler(WRITTEN.plusSeconds(29), false).handleRequest(EventLoader.loadDynamoDbEvent("events/remove-at-expiry.json"), TestLambdaContext.invocation());
        handler(WRITTEN.plusSeconds(7200), false).handleRequest(EventLoader.loadDynamoDbEvent("events/remove-by-user.json"), TestLambdaContext.invocation());
        handler(WRITTEN, false).handleRequest(EventLoader.loadDynamoDbEvent("events/insert.json"), TestLambdaContext.invocation());

        assertThat(bus.calls()).isEmpty();
    }

    @Test
    void eventsOff_publishNothing() {
        FunctionParts parts = FunctionParts.builder(Map.of(
                        StreamWiring.ENV_STATE_MACHINE_ARN, ExpiryStreamHandlerTest.STATE_MACHINE,
                        StreamWiring.ENV_TTL_ATTRIBUTE, "ttl"))
                .executions(executions).clock(Clock.fixed(WRITTEN, ZoneOffset.UTC)).metrics(MetricSink.DISCARD).build();
        ExpiryStreamHandler handler = new ExpiryStreamHandler(parts);
        handlers.add(handler);

        assertThat(parts.settings().eventBus()).isEmpty();
        assertThat(parts.eventBus()).isEmpty();
        assertThat(failures(handler.handleRequest(EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json"), TestLambdaContext.invocation()))).isEmpty();
    }

    @Test
    void duplicateDelivery_publishesTheSameId() throws Exception {
        handler(WRITTEN, false).handleRequest(EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json"), TestLambdaContext.invocation());
        handler(WRITTEN.plusSeconds(90), false).handleRequest(EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json"), TestLambdaContext.invocation());

        assertThat(bus.sent()).hasSize(2);
        assertThat(detail(bus.sent().get(1)).get("id")).isEqualTo(detail(bus.sent().get(0)).get("id"));
    }

    @Test
    void includeOldImage_carriesTheImageInDynamoDbJson() throws Exception {
        handler(WRITTEN, true).handleRequest(EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json"), TestLambdaContext.invocation());

        JsonNode detail = detail(bus.sent().get(0));
        assertThat(detail.get("oldImage").toString())
                .isEqualTo("{\"id\":{\"S\":\"a\"},\"note\":{\"S\":\"private note, never logged\"},\"ttl\":{\"N\":\"1767225500\"}}");
        assertThat(detail.has("oldImageOmitted")).isFalse();
    }

    @Test
    void oldImageOver256KB_isLeftOutAndFlagged_theKeyStillSent() throws Exception {
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json");
        Map<String, AttributeValue> image = new HashMap<>(event.getRecords().get(0).getDynamodb().getOldImage());
        image.put("payload", new AttributeValue().withS("x".repeat(300 * 1024)));
        event.getRecords().get(0).getDynamodb().setOldImage(image);

        StreamsEventResponse response = handler(WRITTEN, true).handleRequest(event, TestLambdaContext.invocation());

        assertThat(failures(response)).isEmpty();
        EventEntry entry = bus.sent().get(0);
        JsonNode detail = detail(entry);
        assertThat(detail.has("oldImage")).isFalse();
        assertThat(detail.get("oldImageOmitted").asText()).isEqualTo("size");
        assertThat(detail.get("key").toString()).isEqualTo("{\"id\":{\"S\":\"a\"}}");
        assertThat(entry.sizeInBytes()).isLessThanOrEqualTo(ExpiryEvents.MAX_ENTRY_BYTES);
    }

    @Test
    void oldImageJustUnderTheLimit_isKept() throws Exception {
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json");
        Map<String, AttributeValue> image = new HashMap<>(event.getRecords().get(0).getDynamodb().getOldImage());
        image.put("payload", new AttributeValue().withS("x".repeat(255 * 1024)));
        event.getRecords().get(0).getDynamodb().setOldImage(image);

        handler(WRITTEN, true).handleRequest(event, TestLambdaContext.invocation());

        assertThat(detail(bus.sent().get(0)).has("oldImage")).isTrue();
    }

    @Test
    void eventNeverAccepted_reportsItsRecordAndTheItemsLaterRecords() {
        bus.refuse(entry -> "InternalFailure");
        DynamodbEvent removal = EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json");
        DynamodbEvent recreation = EventLoader.loadDynamoDbEvent("events/insert.json");
        List<DynamodbEvent.DynamodbStreamRecord> records = new ArrayList<>(removal.getRecords());
        records.addAll(recreation.getRecords());
        recreation.getRecords().get(0).getDynamodb().setSequenceNumber("400");
        DynamodbEvent batch = new DynamodbEvent();
        batch.setRecords(records);

        StreamsEventResponse response = handler(WRITTEN, false).handleRequest(batch, TestLambdaContext.invocation());

        assertThat(failures(response)).containsExactly("301", "400");
        assertThat(bus.sent()).hasSize(EventPublisher.MAX_ATTEMPTS);
    }

    @Test
    void eventRefusedOnce_isRetriedAndNothingIsReported() throws Exception {
        List<String> seen = new ArrayList<>();
        bus.refuse(entry -> seen.add(entry.sequenceNumber()) && seen.size() == 1 ? "ThrottlingException" : null);

        StreamsEventResponse response = handler(WRITTEN, false)
                .handleRequest(EventLoader.loadDynamoDbEvent("events/remove-by-ttl-service.json"), TestLambdaContext.invocation());

        assertThat(failures(response)).isEmpty();
        assertThat(bus.sent()).hasSize(2);
        assertThat(bus.sent().get(1).detail()).isEqualTo(bus.sent().get(0).detail());
    }
}
