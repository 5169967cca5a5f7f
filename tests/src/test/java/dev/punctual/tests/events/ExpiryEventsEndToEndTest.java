package dev.punctual.tests.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.RuntimeProgress;
import dev.punctual.tests.support.ExpiryExecutions;
import dev.punctual.tests.support.ExpiryTable;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code ItemExpired} events end to end on the real embedded runtime: items written to DynamoDB Local,
 * the poller handing stream records to the real handler, executions deleting the items, and the
 * handler publishing with the SDK's {@code EventBridgeClient} to the runtime's EventBridge endpoint,
 * whose stored events these tests read. Each test runs its own runtime on free loopback ports.
 *
 * <p>Each test has its own runtime and mostly waits for its TTLs: they run side by side.
 */
@Execution(ExecutionMode.CONCURRENT)
class ExpiryEventsEndToEndTest {

    /** From a delete to its event: the stream poll, the handler, one PutEvents. */
    private static final Duration EVENT_AFTER_DELETE = Duration.ofSeconds(10);

    @Test
    void thousandItems_giveExactlyThousandEvents_eachAtOrAfterItsTtl_withItsLag() {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts())) {
            ExpiryTable table = ExpiryTable.create(runtime, "ev-1000");
            runtime.observations().deletions().track(table.name());
            long first = Instant.now().getEpochSecond() + 6;
            Map<String, Long> ttls = new HashMap<>();
            for (int i = 0; i < 1000; i++) {
                ttls.put("item-" + i, first + i % 5);
            }
            table.putAll(ttls);
            ReceivedEvents received = new ReceivedEvents(runtime, table.name());
            ExpiryExecutions executions = new ExpiryExecutions(runtime);

            Await.untilProgressing("1,000 events", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> received.details().size() >= 1000);
            Await.holdsUntil("no event beyond the 1,000", Instant.now().plusSeconds(1), () -> received.details().size() == 1000);

            List<JsonNode> details = received.details();
            assertThat(received.ids()).hasSize(1000);
            assertThat(received.byItem().keySet()).containsExactlyInAnyOrderElementsOf(ttls.keySet());
            for (JsonNode detail : details) {
                String id = ReceivedEvents.itemId(detail);
                long ttl = ttls.get(id);
                Instant deletedAt = Instant.parse(detail.get(ExpiryEvents.DELETED_AT).asText());
                long lagMs = detail.get(ExpiryEvents.LAG_MS).asLong();
                Instant actualDelete = runtime.observations().deletions().deletedAt(table.name(),
                        Map.of("id", AttributeValue.fromS(id))).orElseThrow();
                assertThat(detail.get(ExpiryEvents.EXPIRED_BY).asText()).isEqualTo("punctual");
                assertThat(detail.get(ExpiryEvents.TABLE).asText()).isEqualTo(table.name());
                assertThat(detail.get(ExpiryEvents.TTL).asText()).isEqualTo(Long.toString(ttl));
                assertThat(actualDelete).as("delete of %s", id).isAfterOrEqualTo(Instant.ofEpochSecond(ttl));
                assertThat(deletedAt).as("event of %s never reports an expiry before the TTL", id)
                        .isAfterOrEqualTo(Instant.ofEpochSecond(ttl));
                assertThat(lagMs).isEqualTo(deletedAt.toEpochMilli() - ttl * 1000);
                // The handler reads the REMOVE once it is in the stream, which is after the delete task started
                // and may be before the ledger notes the delete (once its call returned: on a loaded machine,
                // later by the call's whole duration).
                Instant deleteStarted = executions.history(executions.arnOf(table, id, ttl)).stream()
                        .filter(event -> event.type().equals("TaskStarted")).reduce((a, b) -> b).orElseThrow().timestamp();
                assertThat(deletedAt).as("event of %s reports when the delete was read", id)
                        .isBetween(deleteStarted, actualDelete.plus(EVENT_AFTER_DELETE));
                assertThat(detail.has(ExpiryEvents.OLD_IMAGE)).as("old image is opt-in").isFalse();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void movedDeletedAndRecreatedItems_giveEventsOnlyForWhatExpired(ExpiryMode mode) {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode))) {
            ExpiryTable table = ExpiryTable.create(runtime, "ev-" + mode.label());
            // The ten writes below must all land before the first TTL: five seconds of room for them when
            // other test classes run beside this one.
            long base = Instant.now().getEpochSecond() + 5;
            table.putWithTtl("expires", base + 3);
            table.putWithTtl("moved", base + 3);
            table.putWithTtl("deleted", base + 4);
            table.putWithTtl("recreated", base + 3);
            table.putWithTtl("ttl-removed", base + 3);
            table.updateTtl("moved", base + 6);
            table.delete("deleted");
            table.delete("recreated");
            table.putWithTtl("recreated", base + 5);
            table.removeTtl("ttl-removed");
            ReceivedEvents received = new ReceivedEvents(runtime, table.name());

            Await.untilProgressing("three events", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> received.details().size() >= 3);
            Await.holdsUntil("no more events for a while", Instant.now().plusSeconds(3), () -> received.details().size() == 3);

            Map<String, List<JsonNode>> byItem = received.byItem();
            assertThat(byItem.keySet()).containsExactlyInAnyOrder("expires", "moved", "recreated");
            assertThat(byItem.get("expires").get(0).get(ExpiryEvents.TTL).asText()).isEqualTo(Long.toString(base + 3));
            assertThat(byItem.get("moved").get(0).get(ExpiryEvents.TTL).asText()).isEqualTo(Long.toString(base + 6));
            assertThat(byItem.get("recreated").get(0).get(ExpiryEvents.TTL).asText()).isEqualTo(Long.toString(base + 5));
            assertThat(table.contains("ttl-removed")).isTrue();
        }
    }

    @Test
    void putEventsFailing_retriesUntilEveryExpiryIsPublished_withOneIdEach() {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts())) {
            ExpiryTable table = ExpiryTable.create(runtime, "ev-faults");
            // Each entry fails all four of the handler's tries with probability 0.45^4 = 4 %: a handful of
            // the 200 records are reported for retry, and every entry is refused at least once in a while.
            runtime.faults().putEvents().failFraction(0.45, 42);
            long first = Instant.now().getEpochSecond() + 4;
            Map<String, Long> ttls = new HashMap<>();
            for (int i = 0; i < 200; i++) {
                ttls.put("item-" + i, first + i % 3);
            }
            table.putAll(ttls);
            ReceivedEvents received = new ReceivedEvents(runtime, table.name());

            Await.untilProgressing("an event for every item", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> received.byItem().size() == 200);

            assertThat(runtime.faults().putEvents().refused()).as("entries refused by the injected fault").isGreaterThan(50);
            assertThat(runtime.streamPoller().metrics().snapshot().failedInvocations()).as("invocations reporting records for retry").isPositive();
            assertThat(runtime.streamPoller().deadLetters().list()).as("nothing dead-lettered").isEmpty();
            received.byItem().forEach((item, events) -> assertThat(events.stream()
                    .map(detail -> detail.get(ExpiryEvents.ID).asText()).distinct()).as("ids of %s", item).hasSize(1));
            assertThat(received.ids()).hasSize(200);
        }
    }
}
