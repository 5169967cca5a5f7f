package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ItemKey;
import java.time.Instant;
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
    void bucketWhoseExecutionEndedUnfinished_isReplacedByItsNextGeneration_andTheRecordSucceeds() {
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30);
        BucketInput first = BucketInput.first(bucket, "ttl", NOW);
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
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30);
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        for (int generation = 0; generation <= BucketGenerations.MAX_GENERATIONS; generation++) {
            executions.start(input.executionName(), input.toJson());
            executions.fail(input.executionName());
            input = input.nextGeneration(NOW, java.time.Duration.ZERO);
        }
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        table.put(key, Long.toString(T + 30));

        BucketScheduler.Placement placement = scheduler.schedule(List.of(request("a", T + 30))).get(request("a", T + 30)).join();

        assertThat(placement.outcome()).as("nobody will read the bucket: the handler deletes the item itself")
                .isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(table.deletes).singleElement().satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(T + 30)));
        assertThat(executions.executionsOf(bucket)).as("no generation past the last").isEqualTo(BucketGenerations.MAX_GENERATIONS + 1);
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
}
