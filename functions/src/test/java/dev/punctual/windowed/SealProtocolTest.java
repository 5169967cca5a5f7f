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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every interleaving of the stream handler's steps (write the entry, start the bucket, read the
 * seal) with the bucket execution's (seal, read, delete), on a manual clock; and with a successor
 * generation's, for a bucket whose execution was stopped before it sealed or failed after. In every
 * one the item is deleted exactly once and never before its TTL, and one successor runs.
 */
class SealProtocolTest extends WindowedTestBase {

    private static final ItemKey KEY = ItemKey.of(Map.of("id", AttributeText.s("a")));

    /** Where the bucket's execution runs, relative to the handler's steps. */
    enum Point {
        /** The execution ran and closed after the handler read its clock, before it wrote the entry. */
        BEFORE_WRITE,
        /**
         * The execution worked the bucket (sealed and read it) before the write and has not closed yet
         * when the handler asks for it: only the seal tells the handler that its entry came too late.
         */
        BEFORE_WRITE_STILL_OPEN,
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
            case BEFORE_WRITE_STILL_OPEN -> index.beforeNext("putChunk", () -> work(BucketInput.first(bucket, "ttl", NOW)));
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
            case BEFORE_WRITE_STILL_OPEN -> index.beforeNext("putChunk", () -> work(BucketInput.first(coarse, "ttl", NOW)));
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

    /**
     * A bucket whose first execution was stopped before it sealed; a late handler write races its
     * successor, which the healer (told by EventBridge) starts at any point of the handler's steps and
     * which runs either at once or only after the handler is done. The item is deleted once, never
     * early, and one successor runs whoever starts it.
     */
    @ParameterizedTest
    @MethodSource("pointsAndSuccessorTimings")
    void bucketStoppedBeforeSealing_successorRacingALateWrite_deletesTheItemOnceAtItsTtl(Point point, boolean successorRunsAtOnce) {
        long due = NOW.getEpochSecond() + 5;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        table.put(KEY, Long.toString(due));
        BucketInput stopped = BucketInput.first(bucket, "ttl", NOW);
        executions.start(stopped.executionName(), stopped.toJson());
        executions.fail(stopped.executionName());
        BucketInput successor = stopped.nextGeneration(NOW, Duration.ZERO);
        BucketGenerations healer = new BucketGenerations(executions, clock);
        Runnable notice = () -> {
            healer.replace(stopped, dev.punctual.expiry.ThrottleBackoff.noRetries());
            if (successorRunsAtOnce) {
                runExecution(successor);
            }
        };

        switch (point) {
            case BEFORE_WRITE -> index.beforeNext("putChunk", notice);
            case AFTER_WRITE_BEFORE_START -> executions.beforeNextStart(notice);
            case AFTER_START_BEFORE_SEAL_READ -> index.beforeNext("isSealed", notice);
            case AFTER_SEAL_READ -> { }
        }
        BucketScheduler.Placement placement = schedule(due);
        if (point == Point.AFTER_SEAL_READ) {
            assertThat(placement.execution()).as("the handler started the successor itself").isEqualTo(successor.executionName());
            notice.run();
        }
        if (executions.running(successor.executionName())) {
            runExecution(successor);
        }

        assertDeletedOnceAtOrAfter(due);
        assertThat(executions.executionsOf(bucket)).as("the stopped execution and one successor").isEqualTo(2);
    }

    static Stream<Arguments> pointsAndSuccessorTimings() {
        return Stream.of(Point.values()).filter(point -> point != Point.BEFORE_WRITE_STILL_OPEN).flatMap(point -> Stream.of(Arguments.of(point, true), Arguments.of(point, false)));
    }

    /** Where, relative to the late item's handler, the successor of a bucket that failed after sealing runs. */
    enum Successor {
        /** The handler meets the failed execution first and starts the successor. */
        STARTED_BY_THE_HANDLER,
        /** The healer started it; it waits while the handler places the item. */
        STARTED_BY_THE_HEALER_WAITING,
        /** The healer started it and it finished before the handler wrote. */
        FINISHED_BEFORE_THE_WRITE
    }

    /**
     * A bucket that sealed, deleted one of its items and failed on the other (nobody else needs it:
     * only the healer comes back to it), while a late item for its second arrives. Its successor
     * deletes what is left; the late item is deleted by the handler, which sees the seal. Each item
     * once, none early.
     */
    @ParameterizedTest
    @EnumSource(Successor.class)
    void bucketThatFailedAfterSealing_successorDeletesTheRest_andTheLateItemOnce(Successor when) {
        long due = NOW.getEpochSecond() + 5;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        ItemKey early = ItemKey.of(Map.of("id", AttributeText.s("deleted-before-the-failure")));
        ItemKey failed = ItemKey.of(Map.of("id", AttributeText.s("whose-delete-failed")));
        for (ItemKey key : List.of(early, failed, KEY)) {
            table.put(key, Long.toString(due));
        }
        index.putChunk(TABLE, due, "earlier", List.of(new IndexEntry(early, Long.toString(due), due),
                new IndexEntry(failed, Long.toString(due), due)));
        BucketInput first = BucketInput.first(bucket, "ttl", NOW);
        executions.start(first.executionName(), first.toJson());
        ItemDeleter failingOnOne = (t, key, attribute, ttl) -> {
            if (key.equals(failed)) {
                throw new IllegalStateException("InternalServerError");
            }
            return table.deleteIfUnchanged(t, key, attribute, ttl);
        };
        clock.set(first.wakeAt());
        BucketWorker dying = new BucketWorker(index, failingOnOne, executions, clock, clock, pool);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> dying.work(first)).isInstanceOf(BucketWorker.BucketFailedException.class);
        executions.fail(first.executionName());
        BucketInput successor = first.nextGeneration(clock.instant(), Duration.ZERO);
        BucketGenerations healer = new BucketGenerations(executions, clock);

        switch (when) {
            case STARTED_BY_THE_HANDLER -> { }
            case STARTED_BY_THE_HEALER_WAITING -> healer.replace(first, dev.punctual.expiry.ThrottleBackoff.noRetries());
            case FINISHED_BEFORE_THE_WRITE -> {
                healer.replace(first, dev.punctual.expiry.ThrottleBackoff.noRetries());
                runExecution(successor);
            }
        }
        BucketScheduler.Placement placement = schedule(due);
        assertThat(placement.outcome()).as("the bucket is sealed: the handler deletes the late item").isEqualTo(BucketScheduler.Outcome.DELETED);
        healer.replace(first, dev.punctual.expiry.ThrottleBackoff.noRetries());
        if (executions.running(successor.executionName())) {
            runExecution(successor);
        }

        assertThat(table.deletes).extracting(WindowedFakes.Table.Deleted::key).containsExactlyInAnyOrder(early, failed, KEY);
        assertThat(table.deletes).allSatisfy(d -> assertThat(d.at()).isAfterOrEqualTo(Instant.ofEpochSecond(due)));
        assertThat(executions.executionsOf(bucket)).isEqualTo(2);
    }

    /** A minute bucket that sealed and then failed to start a child: its successor cascades again. */
    @Test
    void minuteBucketThatFailedAfterSealing_successorStartsTheChildItMissed() {
        long due = NOW.getEpochSecond() + 300;
        Bucket minute = Bucket.containing(TABLE, BucketLevel.MINUTE, due);
        Bucket second = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        table.put(KEY, Long.toString(due));
        schedule(due);
        BucketInput first = BucketInput.first(minute, "ttl", NOW);
        WindowedFakes.BucketExecutions refusing = new WindowedFakes.BucketExecutions() {
            @Override
            public StartResult start(String name, String inputJson) {
                throw new IllegalStateException("ServiceUnavailable");
            }
        };
        clock.set(first.wakeAt());
        BucketWorker dying = new BucketWorker(index, table, refusing, clock, clock, pool);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> dying.work(first)).isInstanceOf(BucketWorker.BucketFailedException.class);
        assertThat(index.isSealed(minute)).isTrue();
        executions.fail(first.executionName());

        BucketGenerations.Live live = new BucketGenerations(executions, clock).replace(first, dev.punctual.expiry.ThrottleBackoff.noRetries());
        runExecution(first.nextGeneration(clock.instant(), Duration.ZERO));
        assertThat(live.execution()).isEqualTo(minute.executionName() + "-g1");
        assertThat(executions.running(second.executionName())).as("the successor's cascade started the child").isTrue();
        runExecution(BucketInput.first(second, "ttl", clock.instant()));

        assertDeletedOnceAtOrAfter(due);
    }

    private BucketScheduler.Placement schedule(long due) {
        BucketScheduler.Request request = new BucketScheduler.Request(TABLE, "ttl", KEY, Long.toString(due), Instant.ofEpochSecond(due));
        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result = scheduler.schedule(List.of(request));
        return result.get(request).join();
    }

    /** The bucket's execution: its Wait ends, the function works the bucket, the execution closes. */
    private void runExecution(BucketInput input) {
        work(input);
        executions.close(input.executionName());
    }

    /** The execution's Wait ends and its function works the bucket; the execution stays open. */
    private void work(BucketInput input) {
        if (clock.instant().isBefore(input.wakeAt())) {
            clock.set(input.wakeAt());
        }
        worker.work(input);
    }

    private void assertDeletedOnceAtOrAfter(long due) {
        assertThat(table.contains(KEY)).as("item gone").isFalse();
        assertThat(table.deletes).as("successful deletes").hasSize(1);
        assertThat(table.deletes.get(0).at()).as("deleted at or after its TTL").isAfterOrEqualTo(Instant.ofEpochSecond(due));
        assertThat(Duration.between(Instant.ofEpochSecond(due), table.deletes.get(0).at())).isLessThan(Duration.ofSeconds(1));
    }
}
