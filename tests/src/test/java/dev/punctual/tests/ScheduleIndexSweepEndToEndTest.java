package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.functions.DynamoDbScheduleIndex;
import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.time.ManualClock;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import java.time.Duration;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * The local runtime's sweep of windowed mode's schedule index ({@code --retain schedule-index}), on the
 * real runtime under a manual timer: the past's entries and seals go once their bucket is over and past
 * the age or the count, the oldest first, and never while an execution may still read them; items still
 * expire each in its own second.
 */
class ScheduleIndexSweepEndToEndTest {

    /** Longer than the sweep waits after a minute ends ({@code ScheduleIndexSweep.SETTLED}, 5 min) plus a run. */
    /** Where the engine's Lambda tasks (the runner's steps) invoke the bucket function, as fault injection names it. */
    private static final String STATE_MACHINE_INVOKE = "state-machine.Invoke";

    private static final Duration SETTLED_AND_SWEPT = Duration.ofMinutes(7);

    @Test
    void pastTheAge_aBucketsEntriesAndSealsAreDeleted_andItemsStillExpireInTheirSecond() {
        try (Runtime run = Runtime.start("schedule-index=10m")) {
            ExpiryTable table = ExpiryTable.create(run.runtime, "sweep-age");
            long first = run.minute + 20;
            long second = run.minute + 80;
            table.putWithTtl("a", first);
            table.putWithTtl("b", second);
            run.time.settle();
            run.expiresInItsSecond(table, "a", first);
            run.expiresInItsSecond(table, "b", second);
            assertThat(run.indexItemsByMinute(table)).as("entries and seals of both minutes, once worked")
                    .containsOnlyKeys(run.minute, run.minute + 60);

            run.time.advanceTo(Instant.ofEpochSecond(run.minute + 120).plus(Duration.ofMinutes(10)).minusSeconds(1));
            assertThat(run.indexItemsByMinute(table)).as("kept until the age has passed since their minute ended")
                    .containsKey(run.minute + 60);
            run.time.advance(Duration.ofMinutes(2));
            assertThat(run.indexItemsByMinute(table)).as("both minutes swept").isEmpty();

            long later = run.time.now().getEpochSecond() + 30;
            table.putWithTtl("c", later);
            run.time.settle();
            run.expiresInItsSecond(table, "c", later);
        }
    }

    @Test
    void aBucketWhoseExecutionIsStillRunning_keepsItsEntriesPastTheAge_andTheyGoOnceItIsDone() {
        try (Runtime run = Runtime.start("schedule-index=1m")) {
            ExpiryTable table = ExpiryTable.create(run.runtime, "sweep-held");
            long ttl = run.minute + 20;
            // Every step of the minute's runner fails until cleared: the bucket execution runs it again and
            // again, fails, and its generations replace it, each reading the minute's entries afresh.
            run.runtime.faults().lambda().failNextAt(STATE_MACHINE_INVOKE, 1_000_000, "Lambda.ServiceException");
            table.putWithTtl("a", ttl);
            run.time.settle();
            run.time.advanceTo(Instant.ofEpochSecond(run.minute + 60).plus(Duration.ofMinutes(12)));
            assertThat(table.contains("a")).as("not deleted while its runner fails").isTrue();
            assertThat(run.indexItemsByMinute(table)).as("its minute's entries kept: a generation will read them")
                    .containsKey(run.minute);

            run.runtime.faults().lambda().clear();
            run.time.advance(Duration.ofMinutes(30));
            assertThat(table.contains("a")).as("deleted by a later generation, from the entries kept").isFalse();
            run.time.advance(SETTLED_AND_SWEPT);
            assertThat(run.indexItemsByMinute(table)).as("swept once no execution reads the minute").isEmpty();
        }
    }

    /**
     * The runtime stops before a minute's execution works it and starts again on its data directory long
     * after: the first sweep, at start, finds the minute past the age, and keeps it for the execution the
     * engine resumes (its runner made to fail for a while, so what it reads is read after the sweep).
     */
    @Test
    void restartedAfterDowntime_theFirstSweepKeepsAResumedBucketsEntries_andItsItemIsDeleted(@TempDir Path data) {
        long minute = (Instant.now().getEpochSecond() / 60 + 1) * 60;
        long ttl = minute + 20;
        String tableName;
        try (Runtime before = Runtime.start(minute, Instant.ofEpochSecond(minute - 5), data, "schedule-index=1m")) {
            ExpiryTable table = ExpiryTable.create(before.runtime, "sweep-restart");
            tableName = table.name();
            table.putWithTtl("a", ttl);
            before.time.settle();
            assertThat(before.indexItemsByMinute(table)).as("indexed before the stop").containsKey(minute);
        }
        Instant restart = Instant.ofEpochSecond(minute + 60).plus(Duration.ofMinutes(20));
        try (Runtime after = Runtime.start(minute, restart, data, "schedule-index=1m")) {
            ExpiryTable table = ExpiryTable.existing(after.runtime, tableName);
            after.runtime.faults().lambda().failNextAt(STATE_MACHINE_INVOKE, 1_000_000, "Lambda.ServiceException");
            after.time.advance(Duration.ofMinutes(5));
            assertThat(table.contains("a")).as("not deleted while its runner fails").isTrue();
            assertThat(after.indexItemsByMinute(table)).as("its minute's entries kept for the resumed bucket")
                    .containsKey(minute);

            after.runtime.faults().lambda().clear();
            after.time.advance(Duration.ofMinutes(30));
            assertThat(table.contains("a")).as("deleted late, after the downtime, from the entries kept").isFalse();
            after.time.advance(SETTLED_AND_SWEPT);
            assertThat(after.indexItemsByMinute(table)).as("swept once no execution reads the minute").isEmpty();
        }
    }

    /**
     * Time jumps hours (a machine woken from sleep): the sweep finds the minutes that hold anything with one
     * scan rather than reading each minute of the gap, sweeps them, and goes on minute by minute.
     */
    @Test
    void afterTheClockJumpsHours_theSweepFindsWhatTheGapHolds_andSweepsOnAfterIt() {
        try (Runtime run = Runtime.start("schedule-index=1m")) {
            ExpiryTable table = ExpiryTable.create(run.runtime, "sweep-jump");
            table.putWithTtl("a", run.minute + 20);
            run.time.settle();
            run.expiresInItsSecond(table, "a", run.minute + 20);

            // A jump, not a skip: the clock moves at once, and only then does anything run.
            run.clock.set(run.time.now().plus(Duration.ofHours(6)));
            run.time.settle();
            assertThat(run.indexItemsByMinute(table)).as("the minute before the jump swept").isEmpty();

            long later = run.time.now().getEpochSecond() + 30;
            table.putWithTtl("b", later);
            run.time.settle();
            run.expiresInItsSecond(table, "b", later);
            assertThat(run.indexItemsByMinute(table)).as("the minute after the jump indexed").isNotEmpty();
            run.time.advance(SETTLED_AND_SWEPT);
            assertThat(run.indexItemsByMinute(table)).as("and swept").isEmpty();
        }
    }

    @Test
    void pastTheCount_theOldestMinutesGoFirst() {
        try (Runtime run = Runtime.start("schedule-index=3", "schedule-index=1d")) {
            ExpiryTable table = ExpiryTable.create(run.runtime, "sweep-count");
            for (int i = 0; i < 3; i++) {
                table.putWithTtl("item-" + i, run.minute + 20 + 60L * i);
            }
            run.time.settle();
            run.time.advanceTo(Instant.ofEpochSecond(run.minute + 180).plus(SETTLED_AND_SWEPT));

            Map<Long, Integer> left = run.indexItemsByMinute(table);
            assertThat(left.values().stream().mapToInt(Integer::intValue).sum()).as("no more than the count").isLessThanOrEqualTo(3);
            assertThat(left).as("the newest minute kept, the two oldest gone").containsOnlyKeys(run.minute + 120);
            for (int i = 0; i < 3; i++) {
                assertThat(table.contains("item-" + i)).as("item-" + i + " expired").isFalse();
            }
        }
    }

    /** A windowed runtime on a manual timer, a few seconds before a whole minute. */
    private static final class Runtime implements AutoCloseable {

        final long minute;
        final LocalRuntime runtime;
        final SkippedTime time;
        final ManualClock clock;

        private Runtime(long minute, LocalRuntime runtime, ManualClock clock) {
            this.minute = minute;
            this.runtime = runtime;
            this.time = SkippedTime.of(runtime);
            this.clock = clock;
        }

        static Runtime start(String... retain) {
            long minute = (Instant.now().getEpochSecond() / 60 + 1) * 60;
            return start(minute, Instant.ofEpochSecond(minute - 5), null, retain);
        }

        /** A runtime whose clock starts {@code at}, on {@code data} (none when null). */
        static Runtime start(long minute, Instant at, Path data, String... retain) {
            RetentionSettings retention = RetentionSettings.defaults();
            for (String override : retain) {
                retention = retention.withOverride(override);
            }
            ManualClock clock = new ManualClock(at);
            LocalRuntime.Options options = LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED)
                    .withTimer(new ManualTimer(clock)).withRetention(retention);
            return new Runtime(minute, LocalRuntime.start(data == null ? options : options.withDataDirectory(data)), clock);
        }

        /** Present at every instant before its TTL, gone before its second ends. */
        void expiresInItsSecond(ExpiryTable table, String id, long ttl) {
            time.advanceTo(Instant.ofEpochSecond(ttl).minusNanos(1));
            assertThat(table.contains(id)).as(id + " present until its TTL").isTrue();
            time.advanceTo(Instant.ofEpochSecond(ttl + 1).minusNanos(1));
            assertThat(table.contains(id)).as(id + " deleted in its second").isFalse();
        }

        /** The index items of {@code table}, counted by the minute whose end their bucket ends with. */
        Map<Long, Integer> indexItemsByMinute(ExpiryTable table) {
            Map<Long, Integer> items = new TreeMap<>();
            Map<String, AttributeValue> after = null;
            do {
                Map<String, AttributeValue> start = after;
                ScanResponse page = runtime.dynamoDb().scan(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME)
                        .consistentRead(true).exclusiveStartKey(start));
                for (Map<String, AttributeValue> item : page.items()) {
                    String partition = item.get(ScheduleIndexTable.PARTITION_KEY).s();
                    Optional<Bucket> sealed = DynamoDbScheduleIndex.sealedBucket(partition);
                    String itemTable = sealed.map(Bucket::table).orElseGet(() -> DynamoDbScheduleIndex.entryTable(partition));
                    if (itemTable.equals(table.name())) {
                        long itemMinute = sealed.map(b -> BucketLevel.MINUTE.startOf(b.end() - 1))
                                .orElseGet(() -> Long.parseLong(partition.substring(partition.lastIndexOf('|') + 1)));
                        items.merge(itemMinute, 1, Integer::sum);
                    }
                }
                after = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (after != null);
            return items;
        }

        @Override
        public void close() {
            runtime.close();
        }
    }
}
