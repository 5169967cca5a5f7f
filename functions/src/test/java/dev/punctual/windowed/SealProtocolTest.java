package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every interleaving of the stream handler's steps (write the entry, start the bucket, read the
 * seal) with the bucket execution's (seal, read, delete), on a manual clock. In every one the item
 * is deleted exactly once and never before its TTL.
 */
class SealProtocolTest extends WindowedTestBase {

    private static final ItemKey KEY = ItemKey.of(Map.of("id", AttributeText.s("a")));

    /** Where the bucket's execution runs, relative to the handler's steps. */
    enum Point {
        /** The execution ran and closed after the handler read its clock, before it wrote the entry. */
        BEFORE_WRITE,
        /** After the write, before the handler starts the bucket's execution. */
        AFTER_WRITE_BEFORE_START,
        /** After the start, before the handler reads the seal. */
        AFTER_START_BEFORE_SEAL_READ,
        /** After the handler read the seal. */
        AFTER_SEAL_READ
    }

    @ParameterizedTest
    @EnumSource(Point.class)
    void oneSecondBucket_executionAtAnyPoint_deletesTheItemOnceAtItsTtl(Point point) {
        long due = NOW.getEpochSecond() + 5;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        table.put(KEY, Long.toString(due));
        // Another item started the bucket earlier; its execution is waiting.
        executions.start(bucket.executionName(), BucketInput.first(bucket, "ttl", NOW).toJson());
        Runnable execution = () -> runExecution(BucketInput.first(bucket, "ttl", NOW));

        switch (point) {
            case BEFORE_WRITE -> index.beforeNext("putChunk", execution);
            case AFTER_WRITE_BEFORE_START -> executions.beforeNextStart(execution);
            case AFTER_START_BEFORE_SEAL_READ -> index.beforeNext("isSealed", execution);
            case AFTER_SEAL_READ -> { }
        }
        BucketScheduler.Placement placement = schedule(due);
        if (point == Point.AFTER_SEAL_READ) {
            assertThat(placement.outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED);
            execution.run();
        }

        assertDeletedOnceAtOrAfter(due);
    }

    /**
     * The one interleaving the points above do not split: the execution has sealed and read its bucket
     * on arrival and now waits for its second when the handler writes the entry. The handler sees the
     * seal and deletes the item itself, at its TTL; the execution's read did not include it.
     */
    @org.junit.jupiter.api.Test
    void oneSecondBucket_entryWrittenWhileItsExecutionWaitsForTheSecond_isDeletedOnceAtItsTtlByTheHandler() {
        long due = NOW.getEpochSecond() + 5;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        table.put(KEY, Long.toString(due));
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        executions.start(bucket.executionName(), input.toJson());
        List<BucketScheduler.Placement> placed = new java.util.ArrayList<>();
        // The execution's wait for its second: the handler's whole batch runs inside it.
        dev.punctual.expiry.Sleeper handlerRunsMeanwhile = new dev.punctual.expiry.Sleeper() {
            @Override
            public void sleep(Duration duration) {
                if (placed.isEmpty()) {
                    placed.add(schedule(due));
                }
                clock.sleep(duration);
            }
        };
        BucketWorker waiting = new BucketWorker(index, table, executions, clock, handlerRunsMeanwhile, pool);
        clock.set(input.wakeAt());

        BucketWorker.Result result = waiting.work(input);
        executions.close(input.executionName());

        assertThat(placed).singleElement().extracting(BucketScheduler.Placement::outcome)
                .isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(result.items()).as("read before the entry was written").isZero();
        assertDeletedOnceAtOrAfter(due);
    }

    /** Every coarse level, with an item due far enough ahead to be indexed under a bucket of that level, at every point. */
    static Stream<Arguments> coarseBucketsAtEveryPoint() {
        Map<BucketLevel, Long> leads = Map.of(BucketLevel.MINUTE, 300L, BucketLevel.HOUR, 2 * 3_600L, BucketLevel.DAY, 2 * 86_400L);
        return Stream.of(BucketLevel.MINUTE, BucketLevel.HOUR, BucketLevel.DAY)
                .flatMap(level -> Stream.of(Point.values()).map(point -> Arguments.of(level, leads.get(level), point)));
    }

    @ParameterizedTest(name = "{0} bucket, cascade {2}")
    @MethodSource("coarseBucketsAtEveryPoint")
    void coarseBucket_cascadeAtAnyPoint_stillDeletesTheItemOnceAtItsTtl(BucketLevel level, long lead, Point point) {
        long due = NOW.getEpochSecond() + lead;
        assertThat(BucketLevel.forLead(lead)).as("the item is indexed under a %s bucket", level).isEqualTo(level);
        Bucket coarse = Bucket.containing(TABLE, level, due);
        table.put(KEY, Long.toString(due));
        executions.start(coarse.executionName(), BucketInput.first(coarse, "ttl", NOW).toJson());
        Runnable cascade = () -> runExecution(BucketInput.first(coarse, "ttl", NOW));

        switch (point) {
            case BEFORE_WRITE -> index.beforeNext("putChunk", cascade);
            case AFTER_WRITE_BEFORE_START -> executions.beforeNextStart(cascade);
            case AFTER_START_BEFORE_SEAL_READ -> index.beforeNext("isSealed", cascade);
            case AFTER_SEAL_READ -> { }
        }
        BucketScheduler.Placement placement = schedule(due);
        if (point == Point.AFTER_SEAL_READ) {
            assertThat(placement.execution()).isEqualTo(coarse.executionName());
            cascade.run();
        }
        // Down the wheel: each finer bucket holding the second runs once its parent has cascaded.
        for (Bucket child = coarse.finerContaining(due); ; child = child.finerContaining(due)) {
            assertThat(executions.running(child.executionName()))
                    .as("%s's execution, started by the cascade or by the handler", child).isTrue();
            runExecution(BucketInput.first(child, "ttl", clock.instant()));
            if (child.level() == BucketLevel.SECOND) {
                break;
            }
        }

        assertDeletedOnceAtOrAfter(due);
    }

    private BucketScheduler.Placement schedule(long due) {
        BucketScheduler.Request request = new BucketScheduler.Request(TABLE, "ttl", KEY, Long.toString(due), Instant.ofEpochSecond(due));
        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result = scheduler.schedule(List.of(request));
        return result.get(request).join();
    }

    /** The bucket's execution: its Wait ends, the function works the bucket, the execution closes. */
    private void runExecution(BucketInput input) {
        if (clock.instant().isBefore(input.wakeAt())) {
            clock.set(input.wakeAt());
        }
        worker.work(input);
        executions.close(input.executionName());
    }

    private void assertDeletedOnceAtOrAfter(long due) {
        assertThat(table.contains(KEY)).as("item gone").isFalse();
        assertThat(table.deletes).as("successful deletes").hasSize(1);
        assertThat(table.deletes.get(0).at()).as("deleted at or after its TTL").isAfterOrEqualTo(Instant.ofEpochSecond(due));
        assertThat(Duration.between(Instant.ofEpochSecond(due), table.deletes.get(0).at())).isLessThan(Duration.ofSeconds(1));
    }
}
