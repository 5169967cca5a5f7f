package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bucket runner's loop, {@code run-bucket.asl.json} on the local engine under a manual clock
 * ({@link RunnerOnEngine}): Step invokes the bucket function, MoreToDo goes on while the step answers a
 * runner state, WaitForNextStep waits until that state's instant, the Step's Retry takes a failed step
 * again, and the runner ends with the bucket's result as its output, or failed once the retries are
 * spent. What each step does is {@code BucketWorkerTest}'s (functions module), one step at a time.
 */
class RunBucketWorkflowTest extends WindowedTestBase {

    private RunnerOnEngine runners;

    @BeforeEach
    void engine() {
        runners = new RunnerOnEngine(clock, executions);
    }

    private static ItemKey key(String id) {
        return ItemKey.of(Map.of("id", AttributeText.s(id)));
    }

    /** {@code id} in the table and in the index, due at {@code due}. */
    private void item(String id, long due) {
        table.put(key(id), Long.toString(due));
        index.putChunk(TABLE, due, "c-" + id, List.of(new IndexEntry(key(id), Long.toString(due), due)));
    }

    private static Tuple entered(String state, long epochSecond) {
        return Tuple.tuple(state, Instant.ofEpochSecond(epochSecond));
    }

    @Test
    void secondBucket_preparedAsItWakes_thenWaitsForItsSecond_deletesThere_andEndsWithItsCounts() {
        long due = T + 10;
        item("a", due);
        item("b", due);
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);
        clock.set(input.wakeAt());

        RunnerOnEngine.Run run = runners.start(worker, input);
        assertThat(table.deletes).as("prepared, not deleted, a second early").isEmpty();
        RunOutcome outcome = run.finish();

        assertThat(run.entered()).extracting(RunnerOnEngine.Run.Entered::state, RunnerOnEngine.Run.Entered::at).containsExactly(
                entered("Step", due - 1), entered("MoreToDo", due - 1), entered("WaitForNextStep", due - 1),
                entered("Step", due), entered("MoreToDo", due), entered("Done", due));
        assertThat(outcome.status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(outcome.output()).isEqualTo(json("{\"outcome\":\"Expired\",\"items\":2,\"expired\":2,\"superseded\":0,\"seconds\":1}"));
        assertThat(table.deletes).hasSize(2).allSatisfy(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(due)));
    }

    @Test
    void minuteBucket_waitsUntilASecondBeforeEachDueSecondToPrepareIt_andUntilTheSecondToDeleteIt() {
        long minute = T + 600;
        item("k10", minute + 10);
        item("k40", minute + 40);
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.MINUTE, minute), "ttl", NOW);
        clock.set(input.wakeAt());
        List<Instant> raised = new CopyOnWriteArrayList<>();
        index.beforeCall("begin", 1, () -> raised.add(clock.instant()));
        for (int call = 1; call <= 2; call++) {
            index.beforeCall("advanceThrough", call, () -> raised.add(clock.instant()));
        }

        RunnerOnEngine.Run run = runners.start(worker, input);
        RunOutcome outcome = run.finish();

        assertThat(raised).as("begun at its wake, then each due second sealed a second before it").containsExactly(
                input.wakeAt(), Instant.ofEpochSecond(minute + 9), Instant.ofEpochSecond(minute + 39));
        assertThat(run.entered()).filteredOn(e -> e.state().equals("Step")).extracting(RunnerOnEngine.Run.Entered::at)
                .containsExactly(input.wakeAt(), Instant.ofEpochSecond(minute + 9), Instant.ofEpochSecond(minute + 10),
                        Instant.ofEpochSecond(minute + 39), Instant.ofEpochSecond(minute + 40));
        assertThat(table.deletes).extracting(WindowedFakes.Table.Deleted::at)
                .containsExactly(Instant.ofEpochSecond(minute + 10), Instant.ofEpochSecond(minute + 40));
        assertThat(outcome.output()).isEqualTo(json("{\"outcome\":\"Expired\",\"items\":2,\"expired\":2,\"superseded\":0,\"seconds\":2}"));
        assertThat(run.entered()).last().extracting(RunnerOnEngine.Run.Entered::state, RunnerOnEngine.Run.Entered::at)
                .as("done after the last due second, not at the minute's end").containsExactly("Done", Instant.ofEpochSecond(minute + 40));
    }

    @Test
    void coarseBucket_endsAfterItsOneStep_withTheCascadeAsItsOutput() {
        Bucket hour = Bucket.containing(TABLE, BucketLevel.HOUR, T + 7_200);
        index.putChunk(TABLE, hour.start() + 61, "a", List.of(new IndexEntry(key("a"), "x", hour.start() + 61)));
        index.putChunk(TABLE, hour.start() + 3_599, "b", List.of(new IndexEntry(key("b"), "x", hour.start() + 3_599)));
        BucketInput input = BucketInput.first(hour, "ttl", NOW);
        clock.set(input.wakeAt());

        RunnerOnEngine.Run run = runners.start(worker, input);

        assertThat(run.outcome()).as("ended without waiting").isNotNull();
        assertThat(run.entered()).extracting(RunnerOnEngine.Run.Entered::state).containsExactly("Step", "MoreToDo", "Done");
        assertThat(run.outcome().output()).isEqualTo(json("{\"outcome\":\"Cascaded\",\"buckets\":2}"));
        assertThat(executions.inputs).hasSize(2);
    }

    /**
     * A step whose deletes keep failing through the function's own rounds fails; the runner's Retry takes
     * the same step again, with the same state, after its back-off, and that finishes the bucket.
     */
    @Test
    void stepThatFails_isTakenAgainByTheRunnersRetry_andFinishesTheBucket() {
        long due = T + 10;
        item("a", due);
        item("b", due);
        AtomicInteger failuresLeft = new AtomicInteger(BucketWorker.DELETE_ATTEMPTS);
        ItemDeleter flaky = (t, key, attribute, ttl) -> {
            if (key.equals(key("b")) && failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("ProvisionedThroughputExceeded");
            }
            return table.deleteIfUnchanged(t, key, attribute, ttl);
        };
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);
        clock.set(input.wakeAt());

        RunnerOnEngine.Run run = runners.start(new BucketWorker(index, flaky, executions, clock, clock, pool), input);
        RunOutcome outcome = run.finish();

        assertThat(outcome.status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(outcome.output()).as("a deleted by the failed step, found gone by its retry")
                .isEqualTo(json("{\"outcome\":\"Expired\",\"items\":2,\"expired\":1,\"superseded\":1,\"seconds\":1}"));
        assertThat(run.entered()).extracting(RunnerOnEngine.Run.Entered::state)
                .containsExactly("Step", "MoreToDo", "WaitForNextStep", "Step", "MoreToDo", "Done");
        assertThat(table.deletes).extracting(d -> d.key().toDynamoJson()).containsExactly(key("a").toDynamoJson(), key("b").toDynamoJson());
        assertThat(table.deletes.get(1).at()).as("after the Retry's back-off: at most its first interval, plus the pauses")
                .isAfter(table.deletes.get(0).at()).isBefore(Instant.ofEpochSecond(due + 2));
    }

    /**
     * A step that fails on every try: the runner takes it once and retries it three times (its Retry's
     * MaxAttempts), then fails with the function's error, which hands the bucket back to its execution.
     */
    @Test
    void stepThatKeepsFailing_failsTheRunnerAfterItsRetries_withTheFunctionsError() {
        long due = T + 10;
        item("a", due);
        List<Instant> attempts = new ArrayList<>();
        ItemDeleter failing = (t, key, attribute, ttl) -> {
            synchronized (attempts) {
                attempts.add(clock.instant());
            }
            throw new IllegalStateException("InternalServerError");
        };
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);
        clock.set(input.wakeAt());

        RunnerOnEngine.Run run = runners.start(new BucketWorker(index, failing, executions, clock, clock, pool), input);
        RunOutcome outcome = run.finish();

        assertThat(outcome.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(outcome.error()).isEqualTo(BucketWorker.BucketFailedException.class.getName());
        assertThat(run.entered()).filteredOn(e -> e.state().equals("Step")).as("the prepare step and the delete step").hasSize(2);
        assertThat(attempts).as("four tries of the delete step, each of the function's rounds")
                .hasSize(4 * BucketWorker.DELETE_ATTEMPTS);
        assertThat(table.contains(key("a"))).isTrue();
    }

    /**
     * A second with more entries than the runner's state carries: the state goes through the runner
     * without them, and the delete step reads them again.
     */
    @Test
    void minuteBucket_secondWithMoreEntriesThanTheStateCarries_crossesTheRunnerWithoutThem_andAllAreDeleted() {
        long due = T + 605;
        List<IndexEntry> many = new ArrayList<>();
        String longText = "x".repeat(1_000);
        for (int i = 0; i < 250; i++) {
            table.put(key(longText + i), Long.toString(due));
            many.add(new IndexEntry(key(longText + i), Long.toString(due), due));
        }
        index.putChunk(TABLE, due, "c1", many);
        BucketInput input = BucketInput.planned(Bucket.containing(TABLE, BucketLevel.MINUTE, due), "ttl", NOW, due);
        clock.set(input.wakeAt());
        RunnerOnEngine.Run run = runners.start(worker, input);
        clock.set(Instant.ofEpochSecond(due - 1));

        RunnerState waiting = run.waitingWith();
        RunOutcome outcome = run.finish();

        assertThat(waiting).extracting(RunnerState::phase, RunnerState::target).containsExactly(RunnerState.Phase.DELETE, due);
        assertThat(waiting.entries()).as("too many to carry").isNull();
        assertThat(outcome.output().path(BucketWorkflow.EXPIRED).asInt()).isEqualTo(250);
        assertThat(table.deletes).allSatisfy(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(due)));
    }

    private static JsonNode json(String text) {
        return dev.punctual.local.stepfunctions.asl.paths.Json.parse(text);
    }
}
