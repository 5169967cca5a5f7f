package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ItemKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class BucketSchedulerTest extends WindowedTestBase {

    private static BucketScheduler.Request request(String id, long ttl) {
        return new BucketScheduler.Request(TABLE, "ttl", ItemKey.of(Map.of("id", AttributeText.s(id))), Long.toString(ttl),
                Instant.ofEpochSecond(ttl));
    }

    @Test
    void items_goToTheCoarsestBucketTheyNeed_oneStartPerBucket() {
        List<BucketScheduler.Request> requests = List.of(request("s1", T + 30), request("s2", T + 30),
                request("m", T + 600), request("h", T + 3 * 3_600), request("d", T + 3 * 86_400));

        scheduler.schedule(requests).values().forEach(CompletableFuture::join);

        assertThat(executions.startCalls).as("a minute bucket at the finest").containsExactlyInAnyOrder(
                Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30).executionName(),
                Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600).executionName(),
                Bucket.containing(TABLE, BucketLevel.HOUR, T + 3 * 3_600).executionName(),
                Bucket.containing(TABLE, BucketLevel.DAY, T + 3 * 86_400).executionName());
        assertThat(index.entriesDue(TABLE, T + 30)).hasSize(2);
        assertThat(index.chunkWrites).as("one chunk per second in the batch").isEqualTo(4);
    }

    @Test
    void duplicateDelivery_rewritesTheSameChunk_andFindsTheRunningBucket() {
        List<BucketScheduler.Request> batch = List.of(request("a", T + 30), request("b", T + 30), request("a", T + 30));

        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> first = scheduler.schedule(batch);
        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> again = scheduler.schedule(List.of(batch.get(1), batch.get(0)));

        assertThat(index.chunkCount()).isEqualTo(1);
        assertThat(index.entriesDue(TABLE, T + 30)).hasSize(2);
        assertThat(first.values()).allSatisfy(p -> assertThat(p.join().outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED));
        assertThat(again.values()).allSatisfy(p -> assertThat(p.join().outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED));
        assertThat(executions.inputs).hasSize(1);
    }

    @Test
    void ttlAlreadyPast_isDeletedAtOnce_withoutTheIndex() {
        table.put(ItemKey.of(Map.of("id", AttributeText.s("old"))), Long.toString(T - 3_600));
        table.put(ItemKey.of(Map.of("id", AttributeText.s("changed"))), Long.toString(T - 60));

        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result =
                scheduler.schedule(List.of(request("old", T - 3_600), request("changed", T - 61)));

        assertThat(result.get(request("old", T - 3_600)).join().outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(result.get(request("changed", T - 61)).join().outcome()).isEqualTo(BucketScheduler.Outcome.SUPERSEDED);
        assertThat(index.chunkCount()).isZero();
        assertThat(executions.startCalls).isEmpty();
    }

    @Test
    void bucketWhoseExecutionEndedUnfinished_isReplacedByItsNextGeneration_andTheRecordSucceeds() {
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30);
        BucketInput first = BucketInput.planned(bucket, "ttl", NOW, T + 30);
        executions.start(first.executionName(), first.toJson());
        executions.fail(first.executionName());

        BucketScheduler.Placement placement = scheduler.schedule(List.of(request("a", T + 30))).get(request("a", T + 30)).join();

        assertThat(placement.outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED);
        assertThat(placement.execution()).isEqualTo(bucket.executionName() + "-g1");
        assertThat(executions.running(bucket.executionName() + "-g1")).isTrue();
        assertThat(executions.inputs.get(bucket.executionName() + "-g1")).contains("\"generation\":1");
    }

    @Test
    void bucketWhoseEveryGenerationFailed_isTreatedAsSealed_soTheHandlerDeletesTheItemAtItsSecond() {
        for (Bucket bucket : List.of(Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30), Bucket.containing(TABLE, BucketLevel.SECOND, T + 30))) {
            BucketInput input = BucketInput.planned(bucket, "ttl", NOW, T + 30);
            for (int generation = 0; generation <= BucketGenerations.MAX_GENERATIONS; generation++) {
                executions.start(input.executionName(), input.toJson());
                executions.fail(input.executionName());
                input = input.nextGeneration(NOW, java.time.Duration.ZERO);
            }
        }
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        table.put(key, Long.toString(T + 30));

        BucketScheduler.Placement placement = scheduler.schedule(List.of(request("a", T + 30))).get(request("a", T + 30)).join();

        assertThat(placement.outcome()).as("nobody will read the minute nor the one-second bucket: the handler deletes the item itself")
                .isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(table.deletes).singleElement().satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(T + 30)));
        assertThat(executions.executionsOf(Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30)))
                .as("no generation past the last").isEqualTo(BucketGenerations.MAX_GENERATIONS + 1);
    }

    @Test
    void startFailure_failsOnlyThatBucketsItems() {
        String later = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600).executionName();
        WindowedFakes.BucketExecutions failing = new WindowedFakes.BucketExecutions() {
            @Override
            public Executions.StartResult start(String name, String inputJson) {
                if (name.startsWith(later)) {
                    throw new IllegalStateException("ThrottlingException");
                }
                return super.start(name, inputJson);
            }
        };
        BucketScheduler withFailures = new BucketScheduler(index, table, failing, clock, clock, pool);

        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result =
                withFailures.schedule(List.of(request("soon", T + 30), request("later", T + 600)));

        assertThat(result.get(request("soon", T + 30)).join().outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED);
        assertThat(result.get(request("later", T + 600))).isCompletedExceptionally();
    }

    @Test
    void chunkWriteFailure_failsOnlyThatSecondsItems_andTheMinuteStillTakesTheOthers() {
        ScheduleIndex failingOneSecond = new ScheduleIndex() {
            @Override
            public void putChunk(String t, long second, String digest, java.util.Collection<IndexEntry> entries) {
                if (second == T + 31) {
                    throw new IllegalStateException("InternalServerError");
                }
                index.putChunk(t, second, digest, entries);
            }

            @Override
            public List<IndexEntry> entriesDue(String t, long second) {
                return index.entriesDue(t, second);
            }

            @Override
            public java.util.OptionalLong nextDueSecond(String t, long minuteStart, long after) {
                return index.nextDueSecond(t, minuteStart, after);
            }

            @Override
            public void seal(Bucket bucket, Instant at) {
                index.seal(bucket, at);
            }

            @Override
            public boolean isSealed(Bucket bucket) {
                return index.isSealed(bucket);
            }

            @Override
            public RunnerMark runnerMark(Bucket minute, MinutePart part) {
                return index.runnerMark(minute, part);
            }

            @Override
            public RunnerMark begin(Bucket minute, MinutePart part) {
                return index.begin(minute, part);
            }

            @Override
            public void advanceThrough(Bucket minute, MinutePart part, long second) {
                index.advanceThrough(minute, part, second);
            }

            @Override
            public void recordNext(Bucket minute, MinutePart part, long second) {
                index.recordNext(minute, part, second);
            }
        };
        BucketScheduler withFailures = new BucketScheduler(failingOneSecond, table, executions, clock, clock, pool);

        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result =
                withFailures.schedule(List.of(request("a", T + 30), request("b", T + 31), request("c", T + 32)));

        assertThat(result.get(request("a", T + 30)).join().outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED);
        assertThat(result.get(request("c", T + 32)).join().outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED);
        assertThat(result.get(request("b", T + 31))).isCompletedExceptionally();
        assertThat(index.entriesDue(TABLE, T + 32)).as("written again alone after its request failed").hasSize(1);
        assertThat(executions.startCalls).singleElement().isEqualTo(Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30).executionName());
    }

    @Test
    void batchSpreadOverFiftySeconds_writesItsFiftyChunksInTwoFullRequests() {
        List<BucketScheduler.Request> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            batch.add(request("spread-" + i, T + 600 + i));
        }

        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result = scheduler.schedule(batch);

        assertThat(result.values()).allSatisfy(placement ->
                assertThat(placement.join().outcome()).isEqualTo(BucketScheduler.Outcome.INDEXED));
        assertThat(index.chunkWrites).as("one chunk per second").isEqualTo(50);
        assertThat(index.callsOf("putChunks")).as("25 chunks a request, and no empty one").isEqualTo(2);
        assertThat(index.callsOf("putChunk")).as("no chunk written twice").isEqualTo(50);
    }

    @Test
    void twoBatchesDueInTheSameSecond_writeTwoChunks_andBothItemsStayIndexed() {
        scheduler.schedule(List.of(request("a", T + 30))).values().forEach(CompletableFuture::join);
        scheduler.schedule(List.of(request("b", T + 30))).values().forEach(CompletableFuture::join);

        assertThat(index.chunkCount()).as("the second batch's chunk does not overwrite the first's").isEqualTo(2);
        assertThat(index.entriesDue(TABLE, T + 30)).extracting(IndexEntry::key)
                .containsExactlyInAnyOrder(request("a", T + 30).key(), request("b", T + 30).key());
    }

    /** A request whose index entry the scheduler counts as exactly 1 KiB: key JSON + TTL text + 32 bytes of overhead. */
    private static BucketScheduler.Request kibibyteRequest(int n, long ttl) {
        String prefix = String.format("%05d-", n);
        String id = prefix + "x".repeat(1024 - 32 - Long.toString(ttl).length() - "{\"id\":{\"S\":\"\"}}".length() - prefix.length());
        BucketScheduler.Request request = request(id, ttl);
        assertThat(request.key().toDynamoJson().length() + request.ttl().length() + 32).isEqualTo(1024);
        return request;
    }

    @Test
    void oneSecondsEntries_areSplitIntoChunksOfAtMost256KiB_everyEntryWrittenOnce() {
        List<BucketScheduler.Request> full = new ArrayList<>();
        for (int n = 0; n < BucketScheduler.MAX_CHUNK_BYTES / 1024; n++) {
            full.add(kibibyteRequest(n, T + 30));
        }
        scheduler.schedule(full).values().forEach(CompletableFuture::join);
        assertThat(index.writtenChunks).as("256 entries of 1 KiB fill one chunk exactly").extracting(List::size).containsExactly(256);

        List<BucketScheduler.Request> more = new ArrayList<>();
        for (int n = 0; n < 600; n++) {
            more.add(kibibyteRequest(n, T + 31));
        }
        index.writtenChunks.clear();
        scheduler.schedule(more).values().forEach(CompletableFuture::join);

        assertThat(index.writtenChunks).extracting(List::size).containsExactly(256, 256, 88);
        assertThat(index.entriesDue(TABLE, T + 31)).extracting(IndexEntry::key).doesNotHaveDuplicates().hasSize(600);
    }

    /** A minute bucket planned for {@code T + 30} (it wakes at {@code T + 19}), started, its runner's mark as given (not begun: null). */
    private Bucket minuteWithMark(Long through, Long next) {
        Bucket minute = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30);
        BucketInput planned = BucketInput.planned(minute, "ttl", NOW, T + 30);
        executions.start(planned.executionName(), planned.toJson());
        if (through != null) {
            index.advanceThrough(minute, MinutePart.MAIN, through);
        }
        if (next != null) {
            index.recordNext(minute, MinutePart.MAIN, next);
        }
        return minute;
    }

    private BucketScheduler.Placement placed(String id, long due) {
        table.put(request(id, due).key(), Long.toString(due));
        return scheduler.schedule(List.of(request(id, due))).get(request(id, due)).join();
    }

    private String oneSecond(long due) {
        return Bucket.containing(TABLE, BucketLevel.SECOND, due).executionName();
    }

    @Test
    void minuteRunnerNotBegun_takesItemsFromASecondAfterItsWake_andHandsEarlierOnesToTheMinutesEarlyPart() {
        Bucket minute = minuteWithMark(null, null);

        assertThat(placed("at-its-first-second", T + 30)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute.executionName()));
        assertThat(placed("later", T + 40)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute.executionName()));
        assertThat(placed("within-the-slack", T + 20)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute.executionName()));
        BucketInput early = BucketInput.early(minute, "ttl", NOW, T + 20);
        assertThat(placed("before-its-wake", T + 19))
                .as("the runner wakes at T+19: too late to prepare T+19 a second ahead; the early part takes it")
                .isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute.executionName() + "-e"));
        assertThat(placed("early-in-the-minute", T + 1)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, early.executionName()));
        assertThat(executions.inputs).as("the minute's input is the first starter's; the later batches found it running")
                .containsEntry(minute.executionName(), BucketInput.planned(minute, "ttl", NOW, T + 30).toJson())
                .containsEntry(early.executionName(), early.toJson())
                .as("no one-second bucket").hasSize(2);
        assertThat(early.wakeAt()).as("as early as it can: now, a second before the minute has passed").isEqualTo(NOW);
        assertThat(BucketInput.early(minute, "ttl", NOW.minusSeconds(90), T + 20).wakeAt()).as("a second before the minute")
                .isEqualTo(Instant.ofEpochSecond(T - 1));
        assertThat(early.toJson()).contains("\"until\":" + (T + 20)).doesNotContain("\"from\"");
    }

    @Test
    void minutesEarlyPartThatHasBegun_placesByItsOwnMark_andItsWakeBoundsWhatItTakes() {
        Bucket minute = minuteWithMark(null, null);
        clock.set(Instant.ofEpochSecond(T + 5));
        BucketInput early = BucketInput.early(minute, "ttl", clock.instant(), T + 20);
        executions.start(early.executionName(), early.toJson());
        index.advanceThrough(minute, MinutePart.EARLY, T + 8);
        index.recordNext(minute, MinutePart.EARLY, T + 12);
        // The main part's own mark says nothing of the early part's seconds.
        index.advanceThrough(minute, MinutePart.MAIN, T + 25);
        index.recordNext(minute, MinutePart.MAIN, T + 40);

        assertThat(placed("sealed", T + 8).outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(placed("in-its-gap", T + 10)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, oneSecond(T + 10)));
        assertThat(placed("at-its-next", T + 12)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, early.executionName()));
        assertThat(placed("last-of-its-part", T + 19)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, early.executionName()));
        assertThat(placed("main-gap", T + 30)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, oneSecond(T + 30)));
    }

    @Test
    void minuteRunnerMarkedThroughTheSecond_handlerDeletesTheItemItself_atItsTtl() {
        minuteWithMark(T + 22L, T + 30L);
        clock.set(Instant.ofEpochSecond(T + 20));

        assertThat(placed("skipped", T + 21).outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(placed("sealed", T + 22).outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(table.deletes).extracting(WindowedFakes.Table.Deleted::at)
                .containsExactly(Instant.ofEpochSecond(T + 21), Instant.ofEpochSecond(T + 22));
    }

    @Test
    void minuteRunnerWhoseNextIsKnown_takesItemsFromItsNextSecondOn_andHandsTheGapToOneSecondBuckets() {
        Bucket minute = minuteWithMark(T + 22L, T + 30L);

        assertThat(placed("at-next", T + 30)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute.executionName()));
        assertThat(placed("after-next", T + 50)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute.executionName()));
        assertThat(placed("in-the-gap", T + 25)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, oneSecond(T + 25)));
        assertThat(table.deletes).isEmpty();
    }

    @Test
    void minuteRunnerReadingWhatComesNext_handsLaterItemsToOneSecondBuckets_forItMayHaveReadBeforeTheirWrite() {
        minuteWithMark(T + 20L, T + 20L);

        assertThat(placed("after", T + 30)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, oneSecond(T + 30)));
        assertThat(index.callsOf("runnerMark")).as("read again while it stayed in flight").isEqualTo(BucketScheduler.MARK_READS);
        assertThat(clock.instant()).as("a pause before each read again")
                .isEqualTo(NOW.plus(BucketScheduler.MARK_REREAD_PAUSE.multipliedBy(BucketScheduler.MARK_READS - 1)));
    }

    @Test
    void minuteRunnerReadingWhatComesNext_isReadAgain_andOnceItKnows_takesTheItem() {
        Bucket minute = minuteWithMark(T + 20L, T + 20L);
        // The runner records what comes next between the handler's first and second read of its mark.
        index.beforeCall("runnerMark", index.callsOf("runnerMark") + 2, () -> index.recordNext(minute, MinutePart.MAIN, T + 30));

        assertThat(placed("at-next", T + 30)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute.executionName()));
        assertThat(index.callsOf("runnerMark")).isEqualTo(2);
    }

    @Test
    void minuteRunnerThatFoundNothingMore_handsEveryLaterItemToAOneSecondBucket() {
        minuteWithMark(T + 20L, minute().end());

        assertThat(placed("after", T + 59)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, oneSecond(T + 59)));
    }

    private static Bucket minute() {
        return Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30);
    }

    @Test
    void minuteHeldByAnExecutionWhoseInputCannotBeRead_isTrustedWithNothingBeforeItBegins() {
        Bucket minute = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600);
        executions.start(minute.executionName(), "{\"other\":\"input\"}");

        assertThat(placed("a", T + 605)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, oneSecond(T + 605)));
        assertThat(executions.startCalls).as("the minute, then the one-second bucket: no early part for a minute of unknown input")
                .containsExactly(minute.executionName(), minute.executionName(), oneSecond(T + 605));
    }

    @Test
    void sealedOneSecondBucket_itsSecondHasCome_soTheHandlerDeletesTheItemItself_neverBeforeItsTtl() {
        minuteWithMark(T + 22L, T + 40L);
        Bucket second = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30);
        executions.start(second.executionName(), BucketInput.first(second, "ttl", NOW).toJson());
        index.seal(second, NOW);

        assertThat(placed("a", T + 30).outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(table.deletes).singleElement().satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(T + 30)));
    }

    /** An hour bucket that has cascaded (sealed) reads no more: its item goes to the minute holding its second. */
    @Test
    void sealedHourBucket_handsTheItemDownToTheMinuteHoldingIt() {
        long due = T + 3 * 3_600 + 125;
        Bucket hour = Bucket.containing(TABLE, BucketLevel.HOUR, due);
        assertThat(BucketLevel.forLead(due - T)).isEqualTo(BucketLevel.HOUR);
        executions.start(hour.executionName(), BucketInput.first(hour, "ttl", NOW).toJson());
        index.seal(hour, NOW);

        BucketScheduler.Placement placement = placed("a", due);

        String minute = Bucket.containing(TABLE, BucketLevel.MINUTE, due).executionName();
        assertThat(placement).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, minute));
        assertThat(executions.running(minute)).isTrue();
    }

    @Test
    void finishedMinuteBucket_handsTheItemDownToTheOneSecondBucketHoldingIt() {
        Bucket minute = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600);
        executions.start(minute.executionName(), BucketInput.first(minute, "ttl", NOW).toJson());
        executions.close(minute.executionName());

        BucketScheduler.Placement placement = scheduler.schedule(List.of(request("a", T + 603))).get(request("a", T + 603)).join();

        String second = Bucket.containing(TABLE, BucketLevel.SECOND, T + 603).executionName();
        assertThat(placement).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, second));
        assertThat(executions.running(second)).isTrue();
        assertThat(table.deletes).isEmpty();
    }

    @Test
    void bucketHeldByAContinuedExecution_isHandedToItsSuccessor_andTheItemIsIndexedThere() {
        Bucket continued = Bucket.containing(TABLE, BucketLevel.HOUR, T + 3 * 3_600);
        executions.start(continued.executionName(), "{\"other\":\"input\"}");
        executions.statuses.put(continued.executionName(), Executions.Status.CONTINUED);

        // A continued execution handed the bucket to its one-year successor: that is the live generation, found
        // (or, were it missing, started) under the successor's name.
        assertThat(placed("b", T + 3 * 3_600)).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED,
                continued.executionName() + "-h1"));
    }
}
