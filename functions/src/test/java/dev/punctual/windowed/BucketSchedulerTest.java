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
import java.util.concurrent.CompletionException;
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

        assertThat(executions.startCalls).containsExactlyInAnyOrder(
                Bucket.containing(TABLE, BucketLevel.SECOND, T + 30).executionName(),
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
    void bucketThatEndedWithoutSealing_failsTheRecord_ratherThanLoseTheItem() {
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30);
        executions.start(bucket.executionName(), "{}");
        executions.close(bucket.executionName());

        CompletableFuture<BucketScheduler.Placement> placement = scheduler.schedule(List.of(request("a", T + 30)))
                .get(request("a", T + 30));

        assertThat(placement).isCompletedExceptionally();
        assertThat(placement.handle((ok, failure) -> failure).join()).isInstanceOf(CompletionException.class)
                .hasMessageContaining("ended without sealing");
    }

    @Test
    void startFailure_failsOnlyThatBucketsItems() {
        WindowedFakes.BucketExecutions failing = new WindowedFakes.BucketExecutions() {
            @Override
            public Executions.StartResult start(String name, String inputJson) {
                if (name.contains("-minute-")) {
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

    @Test
    void sealedOneSecondBucket_itsSecondHasCome_soTheHandlerDeletesTheItemItself_neverBeforeItsTtl() {
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30);
        table.put(request("a", T + 30).key(), Long.toString(T + 30));
        executions.start(bucket.executionName(), BucketInput.first(bucket, "ttl", NOW).toJson());
        index.seal(bucket, NOW);

        BucketScheduler.Placement placement = scheduler.schedule(List.of(request("a", T + 30))).get(request("a", T + 30)).join();

        assertThat(placement.outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(table.deletes).singleElement().satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(T + 30)));
    }

    @Test
    void sealedMinuteBucket_handsTheItemDownToTheOneSecondBucketHoldingIt() {
        Bucket minute = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600);
        executions.start(minute.executionName(), BucketInput.first(minute, "ttl", NOW).toJson());
        executions.close(minute.executionName());
        index.seal(minute, NOW);

        BucketScheduler.Placement placement = scheduler.schedule(List.of(request("a", T + 603))).get(request("a", T + 603)).join();

        String second = Bucket.containing(TABLE, BucketLevel.SECOND, T + 603).executionName();
        assertThat(placement).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, second));
        assertThat(executions.running(second)).isTrue();
        assertThat(table.deletes).isEmpty();
    }

    @Test
    void bucketHeldByARunningOrContinuedExecution_isNotSealed_soTheItemIsIndexedThere() {
        Bucket running = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30);
        Bucket continued = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600);
        // Held under the same name with another input: a bucket beyond a horizon, or one handed to its successor.
        executions.start(running.executionName(), "{\"other\":\"input\"}");
        executions.start(continued.executionName(), "{\"other\":\"input\"}");
        executions.statuses.put(continued.executionName(), Executions.Status.CONTINUED);

        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result =
                scheduler.schedule(List.of(request("a", T + 30), request("b", T + 600)));

        assertThat(result.get(request("a", T + 30)).join())
                .isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, running.executionName()));
        assertThat(result.get(request("b", T + 600)).join())
                .isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, continued.executionName()));
    }
}
