package dev.punctual.tests.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * A runtime on a manual timer, driven by a test: time moves only when the test moves it, in steps,
 * while the real threads (the poller's reads, the handler, the engine's tasks) do their work. And the
 * checks every expiry test makes on a table: none early (by the runtime's ledger, on the runtime's
 * time), none left, and one REMOVE per item in the table's stream.
 */
public final class ManualTimeRun {

    private final LocalRuntime runtime;
    private final ManualTimer timer;

    public ManualTimeRun(LocalRuntime runtime, ManualTimer timer) {
        this.runtime = runtime;
        this.timer = timer;
    }

    /** The runtime's time now. */
    public Instant now() {
        return timer.clock().instant();
    }

    /** Waits until {@code condition} holds, moving time on by {@code step} at each check. */
    public void awaitMovingTime(java.util.function.Supplier<String> description, Duration step, Duration timeout,
            BooleanSupplier condition) {
        Await.until(description, timeout, () -> {
            timer.advance(step);
            return condition.getAsBoolean();
        });
    }

    /** Waits until the poller has handled {@code records} of {@code table}'s records, moving time 100 ms a check. */
    public void awaitHandled(ExpiryTable table, long records, Duration timeout) {
        awaitMovingTime(() -> records + " records of " + table.name() + " handled; " + runtime.streamPoller().tableMetrics()
                .get(table.name()), Duration.ofMillis(100), timeout, () -> {
            var metrics = runtime.streamPoller().tableMetrics().get(table.name());
            return metrics != null && metrics.recordsHandled() >= records;
        });
    }

    /** Items of {@code ttls} still in the table. */
    public static List<String> left(ExpiryTable table, Map<String, Long> ttls) {
        return ttls.keySet().stream().filter(table::contains).sorted().toList();
    }

    /** Asserts each item of {@code ttls} was deleted by Punctual at or after its TTL, on the runtime's clock. */
    public void assertNoneEarly(ExpiryTable table, Map<String, Long> ttls) {
        List<String> early = new ArrayList<>();
        List<String> notByPunctual = new ArrayList<>();
        ttls.forEach((id, ttl) -> {
            Optional<Instant> at = runtime.observations().deletions().deletedAt(table.name(), Map.of(ExpiryTable.KEY, AttributeValue.fromS(id)));
            if (at.isEmpty()) {
                notByPunctual.add(id);
            } else if (at.get().isBefore(Instant.ofEpochSecond(ttl))) {
                early.add(id + " at " + at.get() + ", TTL " + Instant.ofEpochSecond(ttl));
            }
        });
        assertThat(notByPunctual).as("items Punctual did not delete").isEmpty();
        assertThat(early).as("items deleted before their TTL").isEmpty();
    }

    /** Asserts the table's stream holds exactly one REMOVE for each item of {@code ids}, and no other. */
    public void assertOneRemoveEach(ExpiryTable table, java.util.Collection<String> ids) {
        Map<String, Integer> removes;
        try (DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(runtime.endpoints().dynamoDb())) {
            removes = TableStream.removesByKey(streams, table.watched().streamArn(), ExpiryTable.KEY);
        }
        assertThat(removes.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
                .as("items deleted more than once").isEmpty();
        assertThat(removes.keySet()).as("one REMOVE per item").containsExactlyInAnyOrderElementsOf(ids);
    }
}
