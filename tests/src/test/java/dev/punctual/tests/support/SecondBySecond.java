package dev.punctual.tests.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Drives a runtime on a {@link ManualTimer} so that the instant of every delete is exact: time moves to
 * each whole second and stays there until everything due by that second is deleted. An item deleted
 * while the clock reads its TTL second was deleted in that second, whatever the machine's load; an item
 * the runtime would delete a second late is never deleted while the clock reads its second, and the
 * wait for it fails.
 *
 * <p>Two kinds of wait, never mixed. Waiting for the stream moves time slowly (a quarter of the wall
 * clock's pace: the poller's 50 ms pause passes in 200 ms), and never past a <em>hold</em> instant the
 * test chooses before the first TTL, so a slow machine makes the wait longer, never an item late.
 * Stepping through seconds moves time only when what each second owes is done.
 */
public final class SecondBySecond {

    /** Time moved at each check while the stream is read: a quarter of {@link Await#POLL}. */
    private static final Duration STREAM_STEP = Await.POLL.dividedBy(4);
    /** How long a second's deletes may take in wall time before the wait fails: a state, not a tolerance. */
    private static final Duration SECOND_DONE = Duration.ofSeconds(60);
    private static final Duration STREAM_DONE = Duration.ofSeconds(120);

    private ManualTimer timer;
    private LocalRuntime runtime;
    private final Map<String, Long> ttls = new LinkedHashMap<>();
    /** Deletes seen by runtimes closed since, by item: the ledger of a closed runtime is gone with it. */
    private final Map<String, Instant> deletedBefore = new LinkedHashMap<>();
    private ExpiryTable table;

    public SecondBySecond(ManualTimer timer, LocalRuntime runtime) {
        this.timer = timer;
        this.runtime = runtime;
    }

    /** The runtime's instant now. */
    public Instant now() {
        return timer.clock().instant();
    }

    /** Creates the table under test and tracks its deletes. */
    public ExpiryTable createTable(String prefix) {
        table = ExpiryTable.create(runtime, prefix);
        runtime.observations().deletions().track(table.name());
        return table;
    }

    /**
     * Writes {@code items} (id to TTL) and waits until the stream handler has handled every record written so
     * far, moving time no further than {@code hold}.
     */
    public void writeAndHandle(Map<String, Long> items, Instant hold) {
        assertThat(items.values().stream().mapToLong(Long::longValue).min().orElseThrow())
                .as("the first TTL after the hold, so no item falls due while time moves freely")
                .isGreaterThan(hold.getEpochSecond());
        ttls.putAll(items);
        ExpiryTable.batchWrite(runtime.dynamoDb(), table.name(), items);
        long records = ttls.size();
        Await.until(() -> records + " records of " + table.name() + " handled by " + now() + " (hold " + hold + "); "
                + runtime.streamPoller().tableMetrics().get(table.name()), STREAM_DONE, () -> {
            Instant next = now().plus(STREAM_STEP);
            timer.advanceTo(next.isAfter(hold) ? hold : next);
            var metrics = runtime.streamPoller().tableMetrics().get(table.name());
            return metrics != null && metrics.recordsHandled() >= records;
        });
    }

    /**
     * Moves time one whole second at a time up to {@code last}, and at each second waits, without moving
     * time, until every item due by then is gone and none due later is.
     */
    public void stepThrough(Instant last) {
        Instant second = Instant.ofEpochSecond(now().getEpochSecond() + 1);
        while (!second.isAfter(last)) {
            stepTo(second);
            second = second.plusSeconds(1);
        }
    }

    private void stepTo(Instant second) {
        timer.advanceTo(second);
        long at = second.getEpochSecond();
        Await.until(() -> "every item due by " + second + " deleted; not yet: " + dueAndPresent(at), SECOND_DONE, () -> {
            // A Wait scheduled for this very instant after the clock reached it is due now: run it.
            timer.runDue();
            return dueAndPresent(at).isEmpty();
        });
        List<String> early = new ArrayList<>();
        ttls.forEach((id, ttl) -> {
            if (ttl > at && deletedAt(id).isPresent()) {
                early.add(id + " (TTL " + Instant.ofEpochSecond(ttl) + ")");
            }
        });
        assertThat(early).as("items deleted before their TTL, at " + second).isEmpty();
    }

    private List<String> dueAndPresent(long at) {
        return ttls.entrySet().stream().filter(e -> e.getValue() <= at && deletedAt(e.getKey()).isEmpty())
                .map(Map.Entry::getKey).toList();
    }

    private Optional<Instant> deletedAt(String id) {
        Instant before = deletedBefore.get(id);
        return before != null ? Optional.of(before)
                : runtime.observations().deletions().deletedAt(table.name(), Map.of(ExpiryTable.KEY, AttributeValue.fromS(id)));
    }

    /** Records what the current runtime's ledger saw, before the runtime is closed: the ledger goes with it. */
    public void beforeClose() {
        ttls.keySet().forEach(id -> deletedAt(id).ifPresent(at -> deletedBefore.put(id, at)));
    }

    /**
     * Hands the run to {@code next}, on {@code nextTimer}: a runtime on the same data directory that replaces
     * the one just closed.
     */
    public void restartedAs(LocalRuntime next, ManualTimer nextTimer) {
        runtime = next;
        timer = nextTimer;
        table = ExpiryTable.existing(runtime, table.name());
        runtime.observations().deletions().track(table.name());
    }

    /**
     * Asserts the promise: every item deleted by Punctual inside its own TTL second, and nothing left in
     * the table; then that the table's stream holds one REMOVE per item.
     */
    public void assertEachDeletedInItsOwnSecond() {
        List<String> outside = new ArrayList<>();
        ttls.forEach((id, ttl) -> {
            Optional<Instant> at = deletedAt(id);
            Instant from = Instant.ofEpochSecond(ttl);
            if (at.isEmpty() || at.get().isBefore(from) || !at.get().isBefore(from.plusSeconds(1))) {
                outside.add(id + " TTL " + from + " deleted " + at.map(Instant::toString).orElse("never"));
            }
        });
        assertThat(outside).as("items not deleted inside their own TTL second").isEmpty();
        assertThat(ManualTimeRun.left(table, ttls)).as("items left in the table").isEmpty();
        new ManualTimeRun(runtime, timer).assertOneRemoveEach(table, ttls.keySet());
    }
}
