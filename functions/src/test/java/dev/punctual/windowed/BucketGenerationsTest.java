package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.ThrottleBackoff;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class BucketGenerationsTest extends WindowedTestBase {

    private final Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30);
    private BucketGenerations generations;

    private BucketGenerations generations() {
        if (generations == null) {
            generations = new BucketGenerations(executions, clock);
        }
        return generations;
    }

    private BucketInput startedAndFailed(BucketInput input) {
        executions.start(input.executionName(), input.toJson());
        executions.fail(input.executionName());
        return input;
    }

    @Test
    void runningFirstExecution_isTheLiveGeneration_oneStartNoDescribe() {
        BucketGenerations.Live first = generations().ensure(bucket, "ttl", ThrottleBackoff.noRetries());
        BucketGenerations.Live again = generations().ensure(bucket, "ttl", ThrottleBackoff.noRetries());

        assertThat(first).isEqualTo(new BucketGenerations.Live(BucketGenerations.State.RUNNING, bucket.executionName(), 0,
                bucket.naturalWake(), bucket.start()));
        assertThat(again).isEqualTo(first);
        assertThat(executions.inputs).hasSize(1);
        assertThat(executions.describeCalls).as("a start that answers STARTED needs no describe").isEmpty();
        assertThat(executions.inputs.get(bucket.executionName())).as("the first generation's input is what it always was")
                .doesNotContain(dev.punctual.statemachine.BucketWorkflow.GENERATION);
    }

    @Test
    void unfinishedExecution_isReplacedByTheNextGeneration_readingTheSameBucketAtItsOwnTime() {
        BucketInput first = startedAndFailed(BucketInput.first(bucket, "ttl", NOW));

        BucketGenerations.Live live = generations().ensure(bucket, "ttl", ThrottleBackoff.noRetries());

        assertThat(live).isEqualTo(new BucketGenerations.Live(BucketGenerations.State.RUNNING, bucket.executionName() + "-g1", 1,
                first.wakeAt(), bucket.start()));
        assertThat(executions.inputs.get(live.execution()))
                .isEqualTo(new BucketInput(bucket, "ttl", first.wakeAt(), 0, 1).toJson())
                .contains("\"generation\":1");
    }

    @Test
    void minutePlannedForALaterSecond_afterItsExecutionFailed_getsTheNextGenerationForTheSecondsTheFailedOneHeld() {
        Bucket minute = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600);
        BucketInput first = startedAndFailed(BucketInput.planned(minute, "ttl", NOW, minute.start() + 20));
        // A later party (a handler whose items start at the 45th second, a cascade) plans the minute for that second.
        BucketInput later = BucketInput.planned(minute, "ttl", NOW, minute.start() + 45);
        assertThat(later.from()).isGreaterThan(first.from());

        BucketGenerations.Live live = generations().ensure(later, ThrottleBackoff.noRetries());

        assertThat(live.execution()).isEqualTo(minute.executionName() + "-g1");
        assertThat(live.from()).as("the failed generation's seconds, whose items were placed with it").isEqualTo(first.from());
        assertThat(executions.inputs.get(live.execution())).isEqualTo(first.nextGeneration(NOW, Duration.ZERO).toJson());
    }

    @Test
    void succeededExecution_isFinished_andNoSuccessorStarts() {
        BucketInput first = BucketInput.first(bucket, "ttl", NOW);
        executions.start(first.executionName(), first.toJson());
        executions.close(first.executionName());

        BucketGenerations.Live live = generations().ensure(bucket, "ttl", ThrottleBackoff.noRetries());

        assertThat(live.state()).isEqualTo(BucketGenerations.State.FINISHED);
        assertThat(live.willRead()).isFalse();
        assertThat(executions.inputs).hasSize(1);
    }

    @Test
    void theSameUnfinishedExecution_noticedByThreeParties_startsOneSuccessor() throws Exception {
        BucketInput first = startedAndFailed(BucketInput.first(bucket, "ttl", NOW));
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<BucketGenerations.Live>> parties = new ArrayList<>();
        for (int party = 0; party < 3; party++) {
            boolean healer = party == 0;
            parties.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return healer ? generations().replace(first, ThrottleBackoff.noRetries())
                        : generations().ensure(bucket, "ttl", ThrottleBackoff.noRetries());
            }, pool));
        }
        go.countDown();

        assertThat(parties).allSatisfy(p -> assertThat(p.join().execution()).isEqualTo(bucket.executionName() + "-g1"));
        assertThat(executions.executionsOf(bucket)).as("the first execution and one successor").isEqualTo(2);
    }

    @Test
    void aStaleNoticeOfAnOlderGeneration_findsTheLiveOne_ratherThanStartingAnother() {
        BucketInput first = startedAndFailed(BucketInput.first(bucket, "ttl", NOW));
        BucketInput second = startedAndFailed(first.nextGeneration(NOW, Duration.ZERO));
        BucketGenerations.Live third = generations().replace(second, ThrottleBackoff.noRetries());

        BucketGenerations.Live late = generations().replace(first, ThrottleBackoff.noRetries());

        assertThat(late).isEqualTo(third);
        assertThat(late.execution()).isEqualTo(bucket.executionName() + "-g2");
        assertThat(executions.executionsOf(bucket)).isEqualTo(3);
    }

    @Test
    void generationsBackOff_fromNoneForTheFirstSuccessor_toAnHour() {
        Map<Integer, Duration> delays = new HashMap<>();
        for (int generation = 0; generation <= BucketGenerations.MAX_GENERATIONS; generation++) {
            delays.put(generation, BucketGenerations.delayBefore(generation));
        }

        assertThat(delays).containsEntry(0, Duration.ZERO).containsEntry(1, Duration.ZERO)
                .containsEntry(2, Duration.ofMinutes(1)).containsEntry(3, Duration.ofMinutes(2))
                .containsEntry(8, Duration.ofHours(1)).containsEntry(BucketGenerations.MAX_GENERATIONS, Duration.ofHours(1));
        Duration total = delays.values().stream().reduce(Duration.ZERO, Duration::plus);
        assertThat(total).as("a bucket failing forever is tried for about four hours").isBetween(Duration.ofHours(3), Duration.ofHours(5));
    }

    @Test
    void successorAfterARepeatedFailure_waitsItsBackOff_neverBeforeTheBucketsTime() {
        BucketInput first = startedAndFailed(BucketInput.first(bucket, "ttl", NOW));
        clock.set(Instant.ofEpochSecond(T + 40));
        BucketInput second = startedAndFailed(first.nextGeneration(clock.instant(), Duration.ZERO));

        BucketGenerations.Live third = generations().replace(second, ThrottleBackoff.noRetries());

        assertThat(third.generation()).isEqualTo(2);
        assertThat(executions.inputs.get(third.execution())).contains("\"wakeAt\":\"" + Instant.ofEpochSecond(T + 100) + "\"");
        BucketInput early = BucketInput.first(bucket, "ttl", NOW).nextGeneration(NOW, Duration.ofSeconds(5));
        assertThat(early.wakeAt()).as("a back-off shorter than the wait to the bucket changes nothing").isEqualTo(first.wakeAt());
    }

    @Test
    void bucketFailingForever_isAbandonedAfterTheLastGeneration_andNothingMoreStarts() {
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        for (int generation = 0; generation < BucketGenerations.MAX_GENERATIONS; generation++) {
            startedAndFailed(input);
            BucketGenerations.Live next = generations().replace(input, ThrottleBackoff.noRetries());
            assertThat(next.generation()).isEqualTo(generation + 1);
            input = input.nextGeneration(NOW, Duration.ZERO);
        }
        startedAndFailed(input);

        BucketGenerations.Live healer = generations().replace(input, ThrottleBackoff.noRetries());
        BucketGenerations.Live handler = generations().ensure(bucket, "ttl", ThrottleBackoff.noRetries());

        assertThat(healer.state()).isEqualTo(BucketGenerations.State.ABANDONED);
        assertThat(handler).usingRecursiveComparison().ignoringFields("wakeAt").isEqualTo(healer);
        assertThat(handler.willRead()).isFalse();
        assertThat(executions.executionsOf(bucket)).isEqualTo(BucketGenerations.MAX_GENERATIONS + 1);
    }

    @Test
    void continuedExecution_leadsToItsOneYearSuccessor_andAFailedSuccessorGetsAGeneration() {
        Bucket far = Bucket.containing(TABLE, BucketLevel.DAY, T + 400L * 86_400);
        BucketInput first = BucketInput.first(far, "ttl", NOW);
        executions.start(first.executionName(), first.toJson());
        executions.statuses.put(first.executionName(), dev.punctual.expiry.Executions.Status.CONTINUED);
        BucketInput hop = first.successor(NOW);
        startedAndFailed(hop);

        BucketGenerations.Live live = generations().ensure(far, "ttl", ThrottleBackoff.noRetries());

        assertThat(live.execution()).isEqualTo(far.executionName() + "-h1-g1");
        assertThat(live.state()).isEqualTo(BucketGenerations.State.RUNNING);
    }
}
