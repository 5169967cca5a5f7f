package dev.punctual.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

/**
 * The runtime on a manual timer, moved by {@link SkippedTime}: each item is deleted at its own second
 * of the runtime's time, its REMOVE is read as Punctual's (cancellation on) and gives an event saying
 * so, and each move returns only once that is all done, with no wait in the test.
 */
class SkippedTimeTest {

    /** Not a whole second, and far from the wall clock: DynamoDB Local's stream stamps say 2026. */
    private static final Instant START = Instant.parse("2031-03-04T05:06:07.250Z");
    private static final String TABLE = "sessions";

    private LocalRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private SkippedTime start(ExpiryMode mode) {
        // Events kept for as long as time is moved here (an hour by default).
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode).withTimer(ManualTimer.startingAt(START))
                .withRetention(RetentionSettings.defaults().with(Retained.EVENTS, Retention.EVERYTHING)));
        runtime.dynamoDb().createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
        runtime.dynamoDb().updateTimeToLive(b -> b.tableName(TABLE)
                .timeToLiveSpecification(t -> t.enabled(true).attributeName("expiresAt")));
        runtime.observations().deletions().track(TABLE);
        return SkippedTime.of(runtime);
    }

    private void put(String id, long ttl) {
        runtime.dynamoDb().putItem(b -> b.tableName(TABLE).item(Map.of("id", AttributeValue.fromS(id),
                "expiresAt", AttributeValue.fromN(Long.toString(ttl)))));
    }

    private boolean present(String id) {
        return runtime.dynamoDb().getItem(b -> b.tableName(TABLE).key(Map.of("id", AttributeValue.fromS(id)))
                .consistentRead(true)).hasItem();
    }

    private Optional<Instant> deletedAt(String id) {
        return runtime.observations().deletions().deletedAt(TABLE, Map.of("id", AttributeValue.fromS(id)));
    }

    private Map<String, JsonNode> eventsById() {
        Map<String, JsonNode> events = new LinkedHashMap<>();
        runtime.observations().events().all().forEach(stored -> {
            JsonNode detail = stored.event().path("detail");
            events.put(detail.path(ExpiryEvents.KEY).path("id").path("S").asText(), detail);
        });
        return events;
    }

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void advanceTo_deletesEachItemInItsOwnSecond_andItsEventSaysPunctualWithTheLagInRuntimeTime(ExpiryMode mode) {
        SkippedTime time = start(mode);
        long now = START.getEpochSecond();
        Map<String, Long> ttls = new LinkedHashMap<>();
        ttls.put("soon", now + 90);
        ttls.put("hour-a", now + 3_600);
        ttls.put("hour-b", now + 3_600);
        ttls.put("next", now + 3_601);
        ttls.forEach(this::put);

        time.settle();
        assertThat(runtime.streamPoller().tableMetrics().get(TABLE).recordsHandled())
                .as("settled: every record written so far handled, with no wait in the test").isEqualTo(4);

        for (String id : List.of("soon", "hour-a", "next")) {
            Instant ttl = Instant.ofEpochSecond(ttls.get(id));
            time.advanceTo(ttl.minusNanos(1));
            assertThat(present(id)).as(id + " a nanosecond before its TTL").isTrue();
            time.advanceTo(ttl);
            assertThat(present(id)).as(id + " at its TTL").isFalse();
        }
        assertThat(present("hour-b")).isFalse();
        ttls.forEach((id, ttl) -> assertThat(deletedAt(id)).as(id).hasValue(Instant.ofEpochSecond(ttl)));

        Map<String, JsonNode> events = eventsById();
        assertThat(events).containsOnlyKeys(ttls.keySet());
        events.forEach((id, detail) -> {
            assertThat(detail.path(ExpiryEvents.EXPIRED_BY).asText()).as(id).isEqualTo(ExpiryEvents.BY_PUNCTUAL);
            assertThat(detail.path(ExpiryEvents.LAG_MS).asLong()).as(id + ": read at its own second, time still").isZero();
        });
    }

    @Test
    void advanceTo_aYear_stopsOnlyAtInstantsWithWork() {
        SkippedTime time = start(ExpiryMode.PER_ITEM);
        Instant ttl = START.plus(Duration.ofDays(365)).plusSeconds(1);
        put("far", ttl.getEpochSecond());

        List<Instant> stops = time.advanceTo(START.plus(Duration.ofDays(366)));

        assertThat(deletedAt("far")).hasValue(Instant.ofEpochSecond(ttl.getEpochSecond()));
        assertThat(eventsById()).containsOnlyKeys("far");
        assertThat(stops).as("a year of 50 ms polls is not stepped through").hasSizeLessThan(1_000);
        assertThat(time.now()).isEqualTo(START.plus(Duration.ofDays(366)));
    }

    @Test
    void of_whenTheRuntimeRunsOnTheSystemClock_refusesToSkipTime() {
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts());

        assertThatThrownBy(() -> SkippedTime.of(runtime)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ManualTimer");
        assertThatThrownBy(() -> runtime.awaitSettled(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
    }
}
