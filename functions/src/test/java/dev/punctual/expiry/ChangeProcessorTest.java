package dev.punctual.expiry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.peritem.ItemScheduler;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChangeProcessorTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private final RecordingListener listener = new RecordingListener();
    private ExecutorService pool;

    @AfterEach
    void close() {
        pool.shutdown();
    }

    /** A processor whose changes run on a pool of {@code threads}, closed after the test. */
    private ChangeProcessor processor(Scheduler<?> scheduler, int threads) {
        pool = Executors.newFixedThreadPool(threads);
        return new ChangeProcessor(new ExpiryRules("ttl"), scheduler, CLOCK, listener, pool);
    }

    private static StreamChange change(String item, String sequence, String oldTtl, String newTtl) {
        return new StreamChange("orders", oldTtl == null ? EventName.INSERT : EventName.MODIFY,
                ItemKey.of(Map.of("id", AttributeText.s(item))), oldTtl != null, oldTtl == null ? null : AttributeText.n(oldTtl),
                true, AttributeText.n(newTtl), sequence, StreamChange.Writer.UNKNOWN, null);
    }

    @Test
    void process_whenARecordFails_reportsItAndTheItemsLaterRecordsButGoesOnWithOtherItems() {
        FakeExecutions executions = new FakeExecutions();
        executions.failStarts(name -> name.startsWith("20260101T000140Z"), new IllegalStateException("throttled"));
        ChangeProcessor processor = processor(new ItemScheduler(executions, true), 4);

        List<String> failed = processor.process(List.of(
                change("a", "1", null, "1767225700"),
                change("b", "2", null, "1767225800"),
                change("a", "3", "1767225700", "1767225900"),
                change("b", "4", "1767225800", "1767226000"),
                change("a", "5", "1767225900", "1767226100")));

        assertThat(failed).containsExactly("1", "3", "5");
        assertThat(listener.heard()).containsExactlyInAnyOrder("1 failed throttled", "3 skipped after 1", "5 skipped after 1",
                "2 STARTED", "4 STARTED");
        // Records 3 and 5 (item a at 00:05:00Z and 00:08:20Z) were never started; b's TTL change stopped
        // its first execution and started the next.
        assertThat(executions.calls()).noneMatch(call -> call.contains("20260101T000500Z") || call.contains("20260101T000820Z"));
        assertThat(executions.calls()).extracting(call -> call.substring(0, call.indexOf("Z-") + 1))
                .containsExactlyInAnyOrder("start 20260101T000140Z", "start 20260101T000320Z",
                        "stop 20260101T000320Z", "start 20260101T000640Z");
    }

    @Test
    void process_keepsEachItemsRecordsInStreamOrder() {
        FakeExecutions executions = new FakeExecutions();
        ChangeProcessor processor = processor(new ItemScheduler(executions, true), 8);
        List<StreamChange> batch = new ArrayList<>();
        for (int item = 0; item < 20; item++) {
            batch.add(change("i" + item, item + "-1", null, "1767225700"));
            batch.add(change("i" + item, item + "-2", "1767225700", "1767225800"));
            batch.add(change("i" + item, item + "-3", "1767225800", "1767225900"));
        }

        assertThat(processor.process(batch)).isEmpty();

        for (int item = 0; item < 20; item++) {
            String prefix = item + "-";
            List<String> mine = listener.heard().stream().filter(line -> line.startsWith(prefix)).toList();
            assertThat(mine).containsExactly(prefix + "1 STARTED", prefix + "2 STARTED", prefix + "3 STARTED");
        }
    }

    @Test
    void process_runsDifferentItemsConcurrentlyButNoMoreThanTheLimit() throws Exception {
        int limit = 4;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        CountDownLatch limitReached = new CountDownLatch(limit);
        Executions slow = new Executions() {
            @Override
            public StartResult start(String name, String inputJson) {
                mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                limitReached.countDown();
                try {
                    // Holds each call until `limit` calls are in flight together, proving they run concurrently.
                    assertThat(limitReached.await(10, TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                } finally {
                    inFlight.decrementAndGet();
                }
                return StartResult.STARTED;
            }

            @Override
            public Holder describe(String name) {
                throw new UnsupportedOperationException();
            }

            @Override
            public StopResult stop(String name) {
                throw new UnsupportedOperationException();
            }
        };
        ChangeProcessor processor = processor(new ItemScheduler(slow, true), limit);
        List<StreamChange> batch = new ArrayList<>();
        for (int item = 0; item < 40; item++) {
            batch.add(change("i" + item, Integer.toString(item), null, "1767225700"));
        }

        assertThat(processor.process(batch)).isEmpty();

        assertThat(mostInFlight.get()).isEqualTo(limit);
        assertThat(listener.heard()).hasSize(40);
    }
}
