package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BucketWorkerTest extends WindowedTestBase {

    private static ItemKey key(String id) {
        return ItemKey.of(Map.of("id", AttributeText.s(id)));
    }

    /** Sets the clock to when the runner takes {@code state}'s step (its Wait ends there), and takes it. */
    private BucketWorker.Step stepAt(BucketWorker worker, BucketInput input, RunnerState state) {
        clock.set(state.at());
        return worker.step(input, state);
    }

    @Test
    void secondBucket_preparedOnWaking_sealsBeforeReading_readsEachItemOnce_andDeletesAtItsSecond() {
        long due = T + 10;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        table.put(key("a"), Long.toString(due));
        table.put(key("b"), Long.toString(due));
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), Long.toString(due), due)));
        // A second delivery of the batch, chunked differently, indexed "a" again.
        index.putChunk(TABLE, due, "c2", List.of(new IndexEntry(key("a"), Long.toString(due), due),
                new IndexEntry(key("b"), Long.toString(due), due)));
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        clock.set(input.wakeAt());
        index.beforeNext("entriesDue", () -> assertThat(index.isSealed(bucket)).as("sealed before the read").isTrue());

        BucketWorker.Step prepared = worker.step(input, null);

        assertThat(prepared.next()).as("the runner is to wait for the second, then delete what was read")
                .extracting(RunnerState::phase, RunnerState::target, RunnerState::at)
                .containsExactly(RunnerState.Phase.DELETE, due, Instant.ofEpochSecond(due));
        assertThat(prepared.next().entries()).extracting(IndexEntry::key).containsExactly(key("a"), key("b"));
        assertThat(table.deletes).as("nothing deleted a second early").isEmpty();

        BucketWorker.Step deleted = stepAt(worker, input, prepared.next());

        assertThat(deleted.done()).isTrue();
        assertThat(deleted.result()).returns(BucketWorkflow.OUTCOME_EXPIRED, BucketWorker.Result::outcome)
                .returns(2, BucketWorker.Result::items).returns(2, BucketWorker.Result::expired)
                .returns(0, BucketWorker.Result::superseded).returns(1, BucketWorker.Result::seconds);
        assertThat(table.deletes).hasSize(2).allSatisfy(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(due)));
    }

    @Test
    void secondBucket_sealsAndReadsOnArrival_deletesAtItsSecond_andTellsEachPhase() {
        long due = T + 10;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        table.put(key("a"), Long.toString(due));
        table.put(key("b"), Long.toString(due));
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), Long.toString(due), due),
                new IndexEntry(key("b"), Long.toString(due), due)));
        index.putChunk(TABLE, due, "c2", List.of(new IndexEntry(key("a"), Long.toString(due), due)));
        Instant invokedAt = BucketInput.first(bucket, "ttl", NOW).wakeAt();
        clock.set(invokedAt);
        // The seal and the read each take 3 ms here.
        index.beforeNext("seal", () -> clock.advance(Duration.ofMillis(3)));
        index.beforeNext("entriesDue", () -> clock.advance(Duration.ofMillis(3)));
        List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        BucketPhases phases = new BucketPhases() {
            @Override
            public void invoked(Bucket b, Instant at) {
                told.add("invoked " + b.start() + " " + at);
            }

            @Override
            public void woke(Bucket b, Instant at) {
                told.add("woke " + b.start() + " " + at);
            }

            @Override
            public void sealed(Bucket b, Instant at) {
                told.add("sealed " + b.start() + " " + at);
            }

            @Override
            public void read(Bucket b, int items, Instant at) {
                told.add("read " + b.start() + " " + at + " " + items);
            }
        };
        BucketWorker observed = new BucketWorker(index, table, executions, clock, clock, pool, phases);
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);

        BucketWorker.Step prepared = observed.step(input, null);
        assertThat(told).as("the first step: invoked, sealed and read").hasSize(3);
        stepAt(observed, input, prepared.next());

        assertThat(told).as("sealed and read on arrival, a second ahead; woken at the second").containsExactly(
                "invoked " + due + " " + invokedAt,
                "sealed " + due + " " + invokedAt.plusMillis(3),
                "read " + due + " " + invokedAt.plusMillis(6) + " 2",
                "woke " + due + " " + Instant.ofEpochSecond(due));
        assertThat(table.deletes).allSatisfy(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(due)));
    }

    @Test
    void secondBucket_itemWhoseTtlChanged_isSupersededAndKept() {
        long due = T + 1;
        table.put(key("a"), Long.toString(due + 60));
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), Long.toString(due), due)));

        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);

        BucketWorker.Result result = stepAt(worker, input, worker.step(input, null).next()).result();

        assertThat(result).returns(1, BucketWorker.Result::superseded).returns(0, BucketWorker.Result::expired);
        assertThat(table.contains(key("a"))).isTrue();
    }

    @Test
    void secondBucket_retriesOnlyTheDeletesThatFailed_withinTheInvocation() {
        long due = T;
        List<String> attempted = new java.util.concurrent.CopyOnWriteArrayList<>();
        BucketWorker flakyWorker = bucketOfAAndB(due, BucketWorker.DELETE_ATTEMPTS - 1, attempted);
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);

        BucketWorker.Result result = stepAt(flakyWorker, input, flakyWorker.step(input, null).next()).result();

        assertThat(result.expired()).isEqualTo(2);
        assertThat(attempted).as("a once, b until it went").hasSize(1 + BucketWorker.DELETE_ATTEMPTS);
        // Three pauses between the four rounds: half of 100, 200 and 400 ms at least, all of them at most.
        assertThat(table.deletes).filteredOn(d -> d.key().equals(key("b"))).singleElement().satisfies(d ->
                assertThat(Duration.between(Instant.ofEpochSecond(due), d.at()))
                        .isBetween(Duration.ofMillis(350), Duration.ofMillis(700)));
        assertThat(table.deletes).filteredOn(d -> d.key().equals(key("a"))).singleElement()
                .satisfies(d -> assertThat(d.at()).as("no pause before the first round").isEqualTo(Instant.ofEpochSecond(due)));
    }

    /**
     * Items a and b due in {@code due}, indexed, and a worker whose deleter fails b's first
     * {@code failures} deletes; every delete attempted is added to {@code attempted}.
     */
    private BucketWorker bucketOfAAndB(long due, int failures, List<String> attempted) {
        AtomicInteger calls = new AtomicInteger();
        ItemDeleter flaky = (t, key, attribute, ttl) -> {
            attempted.add(key.toDynamoJson());
            if (key.equals(key("b")) && calls.incrementAndGet() <= failures) {
                throw new IllegalStateException("ProvisionedThroughputExceeded");
            }
            return table.deleteIfUnchanged(t, key, attribute, ttl);
        };
        table.put(key("a"), Long.toString(due));
        table.put(key("b"), Long.toString(due));
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), Long.toString(due), due),
                new IndexEntry(key("b"), Long.toString(due), due)));
        return new BucketWorker(index, flaky, executions, clock, clock, pool);
    }

    /**
     * The pauses between rounds of retried deletes, as the sleeper is asked for them: none before the first
     * round, then "equal jitter", at least half of a step that doubles from {@link BucketWorker#FIRST_RETRY_PAUSE}
     * and at most the whole step.
     */
    @Test
    void secondBucket_pausesOnlyBetweenRounds_eachAtLeastHalfOfAStepThatDoubles() {
        long due = T;
        List<Duration> pauses = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.punctual.expiry.Sleeper recording = duration -> {
            pauses.add(duration);
            clock.sleep(duration);
        };
        AtomicInteger failuresLeft = new AtomicInteger(BucketWorker.DELETE_ATTEMPTS - 1);
        BucketWorker flakyWorker = new BucketWorker(index, (t, key, attribute, ttl) -> {
            if (failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("ProvisionedThroughputExceeded");
            }
            return table.deleteIfUnchanged(t, key, attribute, ttl);
        }, executions, clock, recording, pool);
        table.put(key("a"), Long.toString(due));
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), Long.toString(due), due)));
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);

        BucketWorker.Step done = stepAt(flakyWorker, input, flakyWorker.step(input, null).next());

        assertThat(done.result().expired()).isEqualTo(1);
        assertThat(pauses).as("one pause before each retried round, none before the first").hasSize(BucketWorker.DELETE_ATTEMPTS - 1);
        for (int round = 1; round < BucketWorker.DELETE_ATTEMPTS; round++) {
            Duration step = BucketWorker.FIRST_RETRY_PAUSE.multipliedBy(1L << (round - 1));
            assertThat(pauses.get(round - 1)).as("the pause before round %d", round).isBetween(step.dividedBy(2), step);
        }
    }

    @Test
    void secondBucket_reportsTheFailuresOfItsLastRound_notOfEarlierOnes() {
        long due = T;
        AtomicInteger round = new AtomicInteger();
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), Long.toString(due), due)));
        BucketWorker failing = new BucketWorker(index, (t, k, a, ttl) -> {
            throw new IllegalStateException("attempt " + round.incrementAndGet());
        }, executions, clock, clock, pool);

        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);
        RunnerState prepared = failing.step(input, null).next();

        assertThatThrownBy(() -> stepAt(failing, input, prepared))
                .isInstanceOf(BucketWorker.BucketFailedException.class)
                .hasMessageEndingWith("first: java.lang.IllegalStateException: attempt " + BucketWorker.DELETE_ATTEMPTS)
                .satisfies(e -> assertThat(e.getSuppressed()).as("one failure in the last round, none kept from before").isEmpty());
    }

    @Test
    void secondBucket_interruptedWhileItWaitsToRetry_stopsWithTheInterruptKept() throws Exception {
        long due = T;
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), Long.toString(due), due)));
        dev.punctual.expiry.Sleeper interrupted = duration -> {
            throw new InterruptedException("shutting down");
        };
        BucketWorker failing = new BucketWorker(index, (t, k, a, ttl) -> {
            throw new IllegalStateException("InternalServerError");
        }, executions, clock, interrupted, pool);
        clock.set(Instant.ofEpochSecond(due));
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);
        RunnerState prepared = failing.step(input, null).next();

        java.util.concurrent.Future<Throwable> thrown = java.util.concurrent.Executors.newSingleThreadExecutor().submit(() -> {
            try {
                failing.step(input, prepared);
                return null;
            } catch (IllegalStateException e) {
                return Thread.currentThread().isInterrupted() ? e : new AssertionError("the interrupt was not kept", e);
            }
        });

        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("interrupted");
    }

    /** The runner's Retry takes a failed step again with the same state: the step is safe to repeat. */
    @Test
    void secondBucket_whenADeleteKeepsFailing_reportsTheStepFailed_andTheSameStepTakenAgainFinishesIt() {
        long due = T;
        BucketWorker flakyWorker = bucketOfAAndB(due, BucketWorker.DELETE_ATTEMPTS, new java.util.ArrayList<>());
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.SECOND, due), "ttl", NOW);
        RunnerState prepared = flakyWorker.step(input, null).next();

        assertThatThrownBy(() -> stepAt(flakyWorker, input, prepared)).isInstanceOf(BucketWorker.BucketFailedException.class)
                .hasMessageContaining("1 of 2 deletes failed 4 times");
        BucketWorker.Step retried = flakyWorker.step(input, prepared);

        assertThat(retried.done()).isTrue();
        assertThat(retried.result()).returns(1, BucketWorker.Result::expired).returns(2, BucketWorker.Result::items);
        assertThat(retried.result().superseded()).as("a, deleted by the first attempt").isEqualTo(1);
        assertThat(table.deletes).hasSize(2);
    }

    @Test
    void minuteBucket_runsEachDueSecond_preparedASecondAhead_deletedAtIt_andIsDoneAfterTheLast() {
        long minute = T + 600;
        table.put(key("a"), Long.toString(minute + 3));
        table.put(key("b"), Long.toString(minute + 59));
        index.putChunk(TABLE, minute + 3, "c1", List.of(new IndexEntry(key("a"), Long.toString(minute + 3), minute + 3)));
        index.putChunk(TABLE, minute + 59, "c2", List.of(new IndexEntry(key("b"), Long.toString(minute + 59), minute + 59)));
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        clock.set(input.wakeAt());

        BucketWorker.Step begun = worker.step(input, null);
        assertThat(begun.next()).as("begun: the runner waits until a second before the first due second")
                .extracting(RunnerState::phase, RunnerState::target, RunnerState::at)
                .containsExactly(RunnerState.Phase.PREPARE, minute + 3, Instant.ofEpochSecond(minute + 2));
        assertThat(index.runnerMark(bucket)).isEqualTo(new RunnerMark(true, minute - 1, minute + 3));
        clock.set(begun.next().at());
        BucketWorker.Step prepared = worker.step(input, begun.next());
        assertThat(prepared.next()).extracting(RunnerState::phase, RunnerState::target, RunnerState::at, RunnerState::next)
                .containsExactly(RunnerState.Phase.DELETE, minute + 3, Instant.ofEpochSecond(minute + 3), minute + 59);
        assertThat(prepared.next().entries()).extracting(IndexEntry::key).containsExactly(key("a"));
        assertThat(index.runnerMark(bucket)).as("sealed through the prepared second; the read after it found the next")
                .isEqualTo(new RunnerMark(true, minute + 3, minute + 59));
        assertThat(table.deletes).as("nothing deleted a second early").isEmpty();

        clock.set(prepared.next().at());
        BucketWorker.Step deleted = worker.step(input, prepared.next());
        assertThat(table.deletes).singleElement().satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(minute + 3)));
        assertThat(deleted.next()).extracting(RunnerState::phase, RunnerState::target, RunnerState::at)
                .containsExactly(RunnerState.Phase.PREPARE, minute + 59, Instant.ofEpochSecond(minute + 58));

        BucketWorker.Step last = stepAt(worker, input, deleted.next());
        assertThat(last.next()).extracting(RunnerState::phase, RunnerState::target, RunnerState::next)
                .containsExactly(RunnerState.Phase.DELETE, minute + 59, bucket.end());
        BucketWorker.Step done = stepAt(worker, input, last.next());

        assertThat(done.done()).as("done after the last due second").isTrue();
        assertThat(done.result()).returns(BucketWorkflow.OUTCOME_EXPIRED, BucketWorker.Result::outcome)
                .returns(2, BucketWorker.Result::items).returns(2, BucketWorker.Result::expired)
                .returns(0, BucketWorker.Result::superseded).returns(2, BucketWorker.Result::seconds);
        assertThat(table.deletes).extracting(WindowedFakes.Table.Deleted::at)
                .containsExactly(Instant.ofEpochSecond(minute + 3), Instant.ofEpochSecond(minute + 59));
        assertThat(index.runnerMark(bucket)).as("nothing after the last: the next is the minute's end")
                .isEqualTo(new RunnerMark(true, minute + 59, minute + 60));
        assertThat(executions.inputs).as("a minute starts no one-second buckets").isEmpty();
    }

    /**
     * A runner run again from its first step (its execution retried it after it had deleted a second) goes
     * on from its part's mark: the mark's own second prepared again, what it finds there now counted as
     * superseded, and on to the next.
     */
    @Test
    void minuteBucket_runAgainFromItsFirstStep_goesOnFromItsMark_andCountsTheMarksSecondAgainAsSuperseded() {
        long minute = T + 600;
        table.put(key("a"), Long.toString(minute + 3));
        table.put(key("b"), Long.toString(minute + 59));
        index.putChunk(TABLE, minute + 3, "c1", List.of(new IndexEntry(key("a"), Long.toString(minute + 3), minute + 3)));
        index.putChunk(TABLE, minute + 59, "c2", List.of(new IndexEntry(key("b"), Long.toString(minute + 59), minute + 59)));
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        clock.set(input.wakeAt());
        BucketWorker.Step begun = worker.step(input, null);
        stepAt(worker, input, stepAt(worker, input, begun.next()).next());
        assertThat(table.deletes).as("the first run deleted +3").hasSize(1);

        BucketWorker.Step again = worker.step(input, null);

        assertThat(again.next()).as("+3, the mark, prepared again at once").extracting(RunnerState::phase, RunnerState::target)
                .containsExactly(RunnerState.Phase.DELETE, minute + 3);
        BucketWorker.Step toLast = stepAt(worker, input, again.next());
        assertThat(toLast.next()).extracting(RunnerState::phase, RunnerState::target)
                .containsExactly(RunnerState.Phase.PREPARE, minute + 59);
        BucketWorker.Step done = stepAt(worker, input, stepAt(worker, input, toLast.next()).next());
        assertThat(done.result()).returns(BucketWorkflow.OUTCOME_EXPIRED, BucketWorker.Result::outcome)
                .returns(2, BucketWorker.Result::items).returns(1, BucketWorker.Result::expired)
                .returns(1, BucketWorker.Result::superseded).returns(2, BucketWorker.Result::seconds);
        assertThat(table.deletes).extracting(WindowedFakes.Table.Deleted::at)
                .containsExactly(Instant.ofEpochSecond(minute + 3), Instant.ofEpochSecond(minute + 59));
    }

    /** The tries a bucket's execution gives its runner: RunBucket's Retry in expire-bucket.asl.json, the first and eight more. */
    private static final int RUN_BUCKET_TRIES = 9;

    /**
     * A runner cut short on every try, as the Express five-minute limit cuts one that lost four minutes to
     * a single timed-out invocation, and run late (a retry or a later generation finds every second of its
     * minute past, so it takes one step per second): each try goes on from the part's mark, so each gets
     * further than the last and the minute is finished within its execution's tries, each item deleted
     * once and none early. A try that walked the minute again from its first second would end each time
     * where the first try did.
     */
    @Test
    void minuteBucket_runnerCutShortOnEveryTry_goesOnFromItsMark_andFinishesTheMinuteWithinItsExecutionsTries() {
        long minute = T + 600;
        for (int offset = 0; offset < 60; offset++) {
            long due = minute + offset;
            table.put(key("k" + offset), Long.toString(due));
            index.putChunk(TABLE, due, "c" + offset, List.of(new IndexEntry(key("k" + offset), Long.toString(due), due)));
        }
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        clock.set(Instant.ofEpochSecond(bucket.end() + 120));
        int stepsPerTry = 15;

        int tries = 0;
        BucketWorker.Step step = null;
        while (tries < RUN_BUCKET_TRIES && (step == null || !step.done())) {
            tries++;
            step = worker.step(input, null);
            for (int steps = 1; !step.done() && steps < stepsPerTry; steps++) {
                clock.set(step.next().at());
                step = worker.step(input, step.next());
            }
        }

        assertThat(step.done()).as("the minute finished within its execution's tries; each try cut short after "
                + stepsPerTry + " steps; left: " + java.util.stream.IntStream.range(0, 60)
                        .filter(offset -> table.contains(key("k" + offset))).boxed().toList()).isTrue();
        assertThat(tries).as("each try got further than the last: about 14 seconds each").isEqualTo(5);
        assertThat(table.deletes).hasSize(60).allSatisfy(d ->
                assertThat(d.at()).isAfterOrEqualTo(Instant.ofEpochSecond(Long.parseLong(d.ttl()))));
        assertThat(table.deletes).extracting(WindowedFakes.Table.Deleted::key).doesNotHaveDuplicates();
    }

    /**
     * A runner run again whose part's mark is on the part's first second (the first runner prepared it, and
     * perhaps died before deleting it) goes straight to that second: its first step prepares it with the one
     * read of what comes next after it, not a second read from before the part.
     */
    @Test
    void minuteBucket_runAgainWithItsMarkOnItsFirstSecond_preparesThatSecondAtOnce_readingWhatComesNextOnce() {
        long minute = T + 600;
        table.put(key("a"), Long.toString(minute));
        table.put(key("b"), Long.toString(minute + 30));
        index.putChunk(TABLE, minute, "c1", List.of(new IndexEntry(key("a"), Long.toString(minute), minute)));
        index.putChunk(TABLE, minute + 30, "c2", List.of(new IndexEntry(key("b"), Long.toString(minute + 30), minute + 30)));
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        clock.set(input.wakeAt());
        assertThat(worker.step(input, null).next()).as("the first runner prepared the minute's first second as it began")
                .extracting(RunnerState::phase, RunnerState::target).containsExactly(RunnerState.Phase.DELETE, minute);
        assertThat(index.runnerMark(bucket).through()).isEqualTo(input.from());
        int readsBefore = index.callsOf("nextDueSecond");
        int recordsBefore = index.callsOf("recordNext");

        BucketWorker.Step again = worker.step(input, null);

        assertThat(again.next()).extracting(RunnerState::phase, RunnerState::target, RunnerState::next)
                .containsExactly(RunnerState.Phase.DELETE, minute, minute + 30);
        assertThat(index.callsOf("nextDueSecond") - readsBefore).as("reads of what comes next").isEqualTo(1);
        assertThat(index.callsOf("recordNext") - recordsBefore).as("records of the next").isEqualTo(1);
    }

    @Test
    void minuteBucket_withNothingInItsPart_isDoneAsItBegins_recordingTheMinutesEndAsNext() {
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600);
        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        clock.set(input.wakeAt());

        BucketWorker.Step begun = worker.step(input, null);

        assertThat(begun.done()).isTrue();
        assertThat(begun.result().toOutput()).containsExactly(Map.entry(BucketWorkflow.OUTCOME, BucketWorkflow.OUTCOME_EXPIRED),
                Map.entry(BucketWorkflow.ITEMS, 0), Map.entry(BucketWorkflow.EXPIRED, 0), Map.entry(BucketWorkflow.SUPERSEDED, 0),
                Map.entry(BucketWorkflow.SECONDS, 0));
        assertThat(index.runnerMark(bucket)).isEqualTo(new RunnerMark(true, bucket.start() - 1, bucket.end()));
    }

    @Test
    void minuteBucket_deleteStepTakenBeforeItsSecond_waitsForIt() {
        long due = T + 605;
        table.put(key("a"), Long.toString(due));
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, due);
        RunnerState early = new RunnerState(RunnerState.Phase.DELETE, due, Instant.ofEpochSecond(due),
                List.of(new IndexEntry(key("a"), Long.toString(due), due)), bucket.end(), RunnerState.Counts.NONE);
        clock.set(Instant.ofEpochSecond(due).minusMillis(400));

        assertThat(worker.step(BucketInput.first(bucket, "ttl", NOW), early).done()).isTrue();

        assertThat(table.deletes).singleElement().satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(due)));
    }

    @Test
    void minuteBucket_stepByStep_preparesEachSecondASecondAhead() {
        long minute = T + 600;
        for (long due : List.of(minute + 10, minute + 40)) {
            table.put(key("k" + due), Long.toString(due));
            index.putChunk(TABLE, due, "c" + due, List.of(new IndexEntry(key("k" + due), Long.toString(due), due)));
        }
        BucketInput input = BucketInput.first(Bucket.containing(TABLE, BucketLevel.MINUTE, minute), "ttl", NOW);
        clock.set(input.wakeAt());
        List<Instant> raised = new java.util.concurrent.CopyOnWriteArrayList<>();
        index.beforeCall("begin", 1, () -> raised.add(clock.instant()));
        for (int call = 1; call <= 2; call++) {
            index.beforeCall("advanceThrough", call, () -> raised.add(clock.instant()));
        }

        BucketWorker.Step begun = worker.step(input, null);
        assertThat(begun.next().at()).isEqualTo(Instant.ofEpochSecond(minute + 9));
        BucketWorker.Step deleteFirst = stepAt(worker, input, begun.next());
        BucketWorker.Step prepareSecond = stepAt(worker, input, deleteFirst.next());
        assertThat(prepareSecond.next().at()).isEqualTo(Instant.ofEpochSecond(minute + 39));
        stepAt(worker, input, stepAt(worker, input, prepareSecond.next()).next());

        assertThat(raised).as("begun at its wake, then each due second sealed a second before it").containsExactly(
                input.wakeAt(), Instant.ofEpochSecond(minute + 9), Instant.ofEpochSecond(minute + 39));
    }

    @Test
    void minutesEarlyPart_worksOnlyTheSecondsBeforeItsUntil_andRecordsUntilAsItsLastNext() {
        long minute = T + 600;
        for (long due : List.of(minute + 5, minute + 20)) {
            table.put(key("k" + due), Long.toString(due));
            index.putChunk(TABLE, due, "c" + due, List.of(new IndexEntry(key("k" + due), Long.toString(due), due)));
        }
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        BucketInput early = BucketInput.early(bucket, "ttl", NOW, minute + 20);
        clock.set(early.wakeAt());

        BucketWorker.Step begun = worker.step(early, null);
        assertThat(begun.next()).extracting(RunnerState::phase, RunnerState::target)
                .containsExactly(RunnerState.Phase.PREPARE, minute + 5);
        BucketWorker.Step prepared = stepAt(worker, early, begun.next());
        assertThat(prepared.next().next()).as("the part's end: +20 is the main part's").isEqualTo(minute + 20);
        BucketWorker.Step done = stepAt(worker, early, prepared.next());

        assertThat(done.done()).isTrue();
        assertThat(done.result().seconds()).as("its own second only; the main part's first is the main part's").isEqualTo(1);
        assertThat(table.deletes).singleElement().satisfies(d -> assertThat(d.key()).isEqualTo(key("k" + (minute + 5))));
        assertThat(index.runnerMark(bucket, MinutePart.EARLY)).isEqualTo(new RunnerMark(true, minute + 5, minute + 20));
        assertThat(index.runnerMark(bucket, MinutePart.MAIN)).as("the main part's mark untouched").isEqualTo(RunnerMark.NOT_STARTED);

        // A minute whose only entry is on its main part's first second: its early part has nothing to do.
        long later = minute + 60;
        table.put(key("main"), Long.toString(later + 20));
        index.putChunk(TABLE, later + 20, "m", List.of(new IndexEntry(key("main"), Long.toString(later + 20), later + 20)));
        BucketInput nothingEarly = BucketInput.early(Bucket.containing(TABLE, BucketLevel.MINUTE, later), "ttl", NOW, later + 20);
        clock.set(nothingEarly.wakeAt());
        assertThat(worker.step(nothingEarly, null).result()).returns(BucketWorkflow.OUTCOME_EXPIRED, BucketWorker.Result::outcome)
                .returns(0, BucketWorker.Result::items).returns(0, BucketWorker.Result::seconds);
        assertThat(table.contains(key("main"))).isTrue();
    }

    @Test
    void hourCascade_intoAMinutePlannedLater_startsItsEarlyPartOnlyForEntriesBeforeTheMainPartsFirstSecond() {
        Bucket hour = Bucket.containing(TABLE, BucketLevel.HOUR, T + 7_200);
        long first = hour.start() + 60;
        long second = hour.start() + 120;
        // The handler planned both minutes for their 40th second: their main parts work from the 30th on.
        for (long minute : List.of(first, second)) {
            BucketInput planned = BucketInput.planned(Bucket.containing(TABLE, BucketLevel.MINUTE, minute), "ttl", NOW, minute + 40);
            executions.start(planned.executionName(), planned.toJson());
            assertThat(planned.from()).isEqualTo(minute + 30);
        }
        // The hour holds an entry on the first minute's 30th second, and one on the second minute's 29th.
        index.putChunk(TABLE, first + 30, "a", List.of(new IndexEntry(key("a"), Long.toString(first + 30), first + 30)));
        index.putChunk(TABLE, second + 29, "b", List.of(new IndexEntry(key("b"), Long.toString(second + 29), second + 29)));

        assertThat(worker.step(BucketInput.first(hour, "ttl", NOW), null).done()).as("a cascade is one step").isTrue();

        String firstMinute = Bucket.containing(TABLE, BucketLevel.MINUTE, first).executionName();
        String secondMinute = Bucket.containing(TABLE, BucketLevel.MINUTE, second).executionName();
        assertThat(executions.inputs.keySet()).containsExactlyInAnyOrder(firstMinute, secondMinute, secondMinute + "-e");
        assertThat(executions.inputs.get(secondMinute + "-e"))
                .isEqualTo(BucketInput.early(Bucket.containing(TABLE, BucketLevel.MINUTE, second), "ttl", NOW, second + 30).toJson());
    }

    @Test
    void minuteBucket_consecutiveSeconds_deleteOneAndPrepareTheNextInOneStep() {
        long minute = T + 600;
        for (int offset = 21; offset < 24; offset++) {
            table.put(key("k" + offset), Long.toString(minute + offset));
            index.putChunk(TABLE, minute + offset, "c" + offset,
                    List.of(new IndexEntry(key("k" + offset), Long.toString(minute + offset), minute + offset)));
        }
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        BucketInput input = BucketInput.planned(bucket, "ttl", NOW, minute + 21);
        assertThat(input.wakeAt()).as("planned its slack and a second before its first due second")
                .isEqualTo(Instant.ofEpochSecond(minute + 10));
        clock.set(input.wakeAt());

        BucketWorker.Step begun = worker.step(input, null);
        BucketWorker.Step prepared = stepAt(worker, input, begun.next());
        BucketWorker.Step deletedFirst = stepAt(worker, input, prepared.next());
        BucketWorker.Step deletedSecond = stepAt(worker, input, deletedFirst.next());
        BucketWorker.Step done = stepAt(worker, input, deletedSecond.next());

        assertThat(List.of(begun, prepared, deletedFirst, deletedSecond)).extracting(BucketWorker.Step::next)
                .extracting(RunnerState::phase, RunnerState::target).containsExactly(
                        org.assertj.core.groups.Tuple.tuple(RunnerState.Phase.PREPARE, minute + 21),
                        org.assertj.core.groups.Tuple.tuple(RunnerState.Phase.DELETE, minute + 21),
                        org.assertj.core.groups.Tuple.tuple(RunnerState.Phase.DELETE, minute + 22),
                        org.assertj.core.groups.Tuple.tuple(RunnerState.Phase.DELETE, minute + 23));
        assertThat(done.done()).isTrue();
        assertThat(done.result().seconds()).isEqualTo(3);
        assertThat(table.deletes).extracting(WindowedFakes.Table.Deleted::at).containsExactly(Instant.ofEpochSecond(minute + 21),
                Instant.ofEpochSecond(minute + 22), Instant.ofEpochSecond(minute + 23));
    }

    @Test
    void minuteBucket_secondWithMoreEntriesThanTheStateCarries_isReadAgainAtItsDeleteStep() {
        long due = T + 5;
        List<IndexEntry> many = new java.util.ArrayList<>();
        String longText = "x".repeat(1_000);
        for (int i = 0; i < 250; i++) {
            table.put(key(longText + i), Long.toString(due));
            many.add(new IndexEntry(key(longText + i), Long.toString(due), due));
        }
        index.putChunk(TABLE, due, "c1", many);
        BucketInput input = BucketInput.planned(Bucket.containing(TABLE, BucketLevel.MINUTE, due), "ttl", NOW, due);
        clock.set(Instant.ofEpochSecond(due - 1));

        BucketWorker.Step prepared = worker.step(input, null);

        assertThat(prepared.next().phase()).isEqualTo(RunnerState.Phase.DELETE);
        assertThat(prepared.next().entries()).as("too many to carry").isNull();
        assertThat(stepAt(worker, input, prepared.next()).result().expired()).isEqualTo(250);
    }

    /**
     * A minute whose running execution's input cannot be read (not one this version wrote) holds no seconds
     * a cascade can reason about: the hour starts no early part for it, and asks nothing more of it.
     */
    @Test
    void hourCascade_intoAMinuteRunningWithAnUnreadableInput_startsNoEarlyPart() {
        Bucket hour = Bucket.containing(TABLE, BucketLevel.HOUR, T + 7_200);
        long minute = hour.start() + 60;
        String minuteName = Bucket.containing(TABLE, BucketLevel.MINUTE, minute).executionName();
        executions.start(minuteName, "{}");
        index.putChunk(TABLE, minute + 3, "a", List.of(new IndexEntry(key("a"), Long.toString(minute + 3), minute + 3)));

        assertThat(worker.step(BucketInput.first(hour, "ttl", NOW), null).result().buckets()).isEqualTo(1);

        assertThat(executions.inputs.keySet()).containsExactly(minuteName);
        assertThat(executions.startCalls).as("the test's start, then the cascade's").containsExactly(minuteName, minuteName);
    }

    /** A coarse bucket seals itself before it looks for children: an entry the handler writes after its look goes finer. */
    @Test
    void hourAndDayBuckets_sealThemselvesBeforeTheyLookForChildren() {
        long day = BucketLevel.DAY.startOf(T) + 3 * 86_400;
        for (Bucket coarse : List.of(new Bucket(TABLE, BucketLevel.DAY, day), new Bucket(TABLE, BucketLevel.HOUR, day + 5 * 3_600))) {
            index.beforeNext("nextDueSecond", () -> assertThat(index.isSealed(coarse)).as("%s sealed before it looks", coarse).isTrue());

            assertThat(worker.step(BucketInput.first(coarse, "ttl", NOW), null).done()).isTrue();

            assertThat(index.isSealed(coarse)).isTrue();
        }
    }

    @Test
    void hourBucket_entryOnAMinutesFirstSecond_startsThatMinute_plannedForThatSecond() {
        Bucket hour = Bucket.containing(TABLE, BucketLevel.HOUR, T + 7_200);
        long minute = hour.start() + 120;
        index.putChunk(TABLE, minute, "a", List.of(new IndexEntry(key("a"), Long.toString(minute), minute)));

        worker.step(BucketInput.first(hour, "ttl", NOW), null);

        Bucket child = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        assertThat(executions.inputs).containsOnly(Map.entry(child.executionName(),
                BucketInput.planned(child, "ttl", NOW, minute).toJson()));
    }

    @Test
    void hourAndDayBuckets_startOnlyTheChildrenThatHoldEntries() {
        long day = BucketLevel.DAY.startOf(T) + 3 * 86_400;
        long due = day + 5 * 3_600 + 17 * 60 + 9;
        index.putChunk(TABLE, due, "c1", List.of(new IndexEntry(key("a"), "x", due)));

        BucketWorker.Step dayStep = worker.step(BucketInput.first(new Bucket(TABLE, BucketLevel.DAY, day), "ttl", clock.instant()), null);
        BucketWorker.Step hourStep = worker.step(BucketInput.first(Bucket.containing(TABLE, BucketLevel.HOUR, due), "ttl", clock.instant()), null);

        assertThat(List.of(dayStep, hourStep)).as("each cascades in one step").allSatisfy(step -> assertThat(step.done()).isTrue());
        assertThat(List.of(dayStep.result(), hourStep.result())).extracting(BucketWorker.Result::outcome, BucketWorker.Result::buckets)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(BucketWorkflow.OUTCOME_CASCADED, 1));

        assertThat(executions.inputs.keySet()).containsExactly(
                Bucket.containing(TABLE, BucketLevel.HOUR, due).executionName(),
                Bucket.containing(TABLE, BucketLevel.MINUTE, due).executionName());
    }

    @Test
    void bucketYearsOut_wakesWithinAHorizon_andContinuesAsItsSuccessor_untilItsTime() {
        long due = T + 3 * 365 * 86_400L;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.DAY, due);
        BucketInput first = BucketInput.first(bucket, "ttl", NOW);
        assertThat(first.wakeAt()).isEqualTo(NOW.plus(ExpiryWorkflow.HORIZON));

        clock.set(first.wakeAt());
        BucketWorker.Step step = worker.step(first, null);

        assertThat(step.done()).isTrue();
        assertThat(step.result()).returns(ExpiryWorkflow.OUTCOME_CONTINUED, BucketWorker.Result::outcome)
                .returns(1, BucketWorker.Result::buckets);
        assertThat(index.isSealed(bucket)).as("a hop does not seal").isFalse();
        String successor = bucket.executionName() + "-h1";
        assertThat(executions.inputs).containsKey(successor);
        assertThat(executions.inputs.get(successor)).contains("\"hop\":1")
                .contains("\"wakeAt\":\"" + first.wakeAt().plus(ExpiryWorkflow.HORIZON) + "\"");
        assertThat(Duration.between(NOW, bucket.naturalWake()).toDays()).isGreaterThan(2 * 360);
    }

    @Test
    void hourAndDayBuckets_lookOnlyWithinThemselves_entriesJustBeyondTheirEndStartNothing() {
        long day = BucketLevel.DAY.startOf(T) + 3 * 86_400;
        long hour = day + 5 * 3_600;
        // The first second of the next hour, and of the next day; the last minute of the hour and of the day.
        index.putChunk(TABLE, hour + 3_600, "c1", List.of(new IndexEntry(key("a"), "x", hour + 3_600)));
        index.putChunk(TABLE, day + 86_400, "c2", List.of(new IndexEntry(key("b"), "x", day + 86_400)));
        index.putChunk(TABLE, hour + 3_599, "c3", List.of(new IndexEntry(key("c"), "x", hour + 3_599)));
        index.putChunk(TABLE, day + 86_399, "c4", List.of(new IndexEntry(key("d"), "x", day + 86_399)));

        BucketWorker.Result hourResult = worker.step(BucketInput.first(new Bucket(TABLE, BucketLevel.HOUR, hour), "ttl", NOW), null).result();
        BucketWorker.Result dayResult = worker.step(BucketInput.first(new Bucket(TABLE, BucketLevel.DAY, day), "ttl", NOW), null).result();

        assertThat(hourResult.buckets()).isEqualTo(1);
        assertThat(dayResult.buckets()).isEqualTo(3);
        assertThat(executions.inputs.keySet()).containsExactlyInAnyOrder(
                Bucket.containing(TABLE, BucketLevel.MINUTE, hour + 3_599).executionName(),
                Bucket.containing(TABLE, BucketLevel.HOUR, hour).executionName(),
                Bucket.containing(TABLE, BucketLevel.HOUR, hour + 3_600).executionName(),
                Bucket.containing(TABLE, BucketLevel.HOUR, day + 86_399).executionName());
    }

    @Test
    void result_output_reportsItemsForAnExpiredBucket_andBucketsOtherwise() {
        RunnerState.Counts counts = new RunnerState.Counts(3, 2, 1, 2);
        assertThat(BucketWorker.Result.expired(counts).toOutput()).containsExactly(
                Map.entry(BucketWorkflow.OUTCOME, BucketWorkflow.OUTCOME_EXPIRED), Map.entry(BucketWorkflow.ITEMS, counts.items()),
                Map.entry(BucketWorkflow.EXPIRED, counts.expired()), Map.entry(BucketWorkflow.SUPERSEDED, counts.superseded()),
                Map.entry(BucketWorkflow.SECONDS, counts.seconds()));
        assertThat(BucketWorker.Result.cascaded(4).toOutput()).containsExactly(
                Map.entry(BucketWorkflow.OUTCOME, BucketWorkflow.OUTCOME_CASCADED), Map.entry(BucketWorkflow.BUCKETS, 4));
        assertThat(BucketWorker.Result.continued().toOutput()).as("the successor it started").containsExactly(
                Map.entry(BucketWorkflow.OUTCOME, BucketWorkflow.OUTCOME_CONTINUED), Map.entry(BucketWorkflow.BUCKETS, 1));
    }

    @Test
    void failedDeletes_nameTheBucket_andKeepTheFirstFailuresAsSuppressed() {
        long due = T;
        Bucket bucket = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        List<IndexEntry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < 7; i++) {
            entries.add(new IndexEntry(key("k" + i), Long.toString(due), due));
        }
        index.putChunk(TABLE, due, "c1", entries);
        BucketWorker failing = new BucketWorker(index, (t, k, a, ttl) -> {
            throw new IllegalStateException("InternalServerError");
        }, executions, clock, clock, pool);

        BucketInput input = BucketInput.first(bucket, "ttl", NOW);
        RunnerState prepared = failing.step(input, null).next();

        assertThatThrownBy(() -> stepAt(failing, input, prepared))
                .isInstanceOf(BucketWorker.BucketFailedException.class)
                .hasMessageStartingWith(TABLE + "/second@" + Instant.ofEpochSecond(due) + ": 7 of 7 deletes failed " + BucketWorker.DELETE_ATTEMPTS + " times; first: ")
                .satisfies(e -> assertThat(e.getSuppressed()).as("the next four failures").hasSize(4));
    }

    @Test
    void dayBucket_startsAnHourOnlyForEntriesInThatHour_notForOnesInTheNextHoursFirstMinute() {
        long day = BucketLevel.DAY.startOf(T) + 4 * 86_400;
        long sixOClock = day + 6 * 3_600;
        index.putChunk(TABLE, sixOClock, "c1", List.of(new IndexEntry(key("a"), "x", sixOClock)));

        assertThat(worker.step(BucketInput.first(new Bucket(TABLE, BucketLevel.DAY, day), "ttl", NOW), null).result().buckets())
                .isEqualTo(1);

        assertThat(executions.inputs.keySet()).containsExactly(Bucket.containing(TABLE, BucketLevel.HOUR, sixOClock).executionName());
    }
}
