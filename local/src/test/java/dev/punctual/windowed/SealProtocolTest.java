package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seal protocol at every level, on a manual clock: every interleaving of the stream handler's steps
 * (write the entry, start or find the bucket, read its seal or its runner's mark, and for a one-second
 * fallback start it and read its seal) with a minute runner's (raise the mark, read a second, find and
 * record the next), with a duplicate runner's, with a runner run again after a failure, with a successor
 * generation's, and with a coarse bucket's cascade. In every one each item is deleted exactly once, never
 * before its TTL, and no later than a second after its TTL or its write, whichever came last.
 *
 * <p>Every runner here is {@code run-bucket.asl.json} itself on the local engine ({@link RunnerOnEngine}):
 * its steps, the waits between them, its Step retries and its end are the ASL's, on this test's clock;
 * the handler, the index, the table and the bucket executions are windowed mode's core over in-memory
 * stand-ins. A bucket's execution (its Wait until {@code wakeAt}, then its runner) is played by the test.
 */
class SealProtocolTest extends WindowedTestBase {

    private static final ItemKey KEY = key("late");
    /** The minute every runner test works: its runner is planned for {@link #FIRST}. */
    private static final Bucket MINUTE = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 60);
    private static final long M = MINUTE.start();
    /** Two items already indexed when the runner begins. */
    private static final long FIRST = M + 25;
    private static final long SECOND = M + 40;
    private static final ItemKey AT_FIRST = key("at-first");
    private static final ItemKey AT_SECOND = key("at-second");

    private static ItemKey key(String id) {
        return ItemKey.of(Map.of("id", AttributeText.s(id)));
    }

    /** When the handler placed the late item: the clock then. */
    private Instant handledAt;
    /** Executions a test runs itself: the clock does not run them at their wake. */
    private final java.util.Set<String> runByTest = new java.util.HashSet<>();
    /** The bucket runner's ASL on the engine, its waits on this test's clock. */
    private RunnerOnEngine runners;

    /**
     * One-second fallbacks and minutes' early parts run on their own, at their time, while the clock
     * moves: the handler starts them and their executions wake as Step Functions would wake them.
     */
    @org.junit.jupiter.api.BeforeEach
    void fallbacksRunAtTheirTime() {
        runners = new RunnerOnEngine(clock, executions);
        index.timedBy(clock);
        executions.onStarted((name, input) -> {
            if (isFallback(name) && !runByTest.contains(name)) {
                BucketInput fallback = inputOf(name);
                clock.at(fallback.wakeAt(), () -> {
                    if (executions.running(name)) {
                        runExecution(fallback);
                    }
                });
            }
        });
    }

    // ------------------------------------------------------------------------------------------------
    // A minute's runner against a handler, at every call of the runner

    /** The index calls a runner makes, each a point the handler can come just before. */
    enum RunnerCall { begin, advanceThrough, entriesDue, nextDueSecond, recordNext }

    /**
     * Where the late item falls relative to the two indexed ones: before the runner's planned wake, after
     * it but before the first, on a second the runner will work anyway, in the gap it skips, on the other
     * one, after the last.
     */
    static Stream<Arguments> lateItemAtEveryRunnerCall() {
        return atEveryCall(5, M + 5, M + 20, FIRST, M + 30, SECOND, M + 50);
    }

    /**
     * For each due second (as an offset from the minute), the handler before the first {@code calls} calls
     * of each kind a runner makes, and after the runner (no call: {@code null}, 0).
     */
    private static Stream<Arguments> atEveryCall(int calls, long... dues) {
        return java.util.Arrays.stream(dues).boxed().flatMap(due -> Stream.concat(
                Stream.of(RunnerCall.values()).flatMap(call -> IntStream.rangeClosed(1, calls)
                        .mapToObj(nth -> Arguments.of(due - M, call, nth))),
                Stream.of(Arguments.of(due - M, null, 0))));
    }

    @ParameterizedTest(name = "item at +{0}s, handler before {1} #{2}")
    @MethodSource("lateItemAtEveryRunnerCall")
    void minuteRunner_lateItemHandledBeforeAnyOfItsCalls_everyItemDeletedOnceOnTime(long offset, RunnerCall call, int nth) {
        long due = M + offset;
        BucketInput runner = plannedRunner();
        if (call == null) {
            // The handler comes before the runner begins.
            handle(due);
        } else {
            index.beforeCall(call.name(), nth, () -> handleOnce(due));
        }

        work(runner);
        executions.close(runner.executionName());
        if (handledAt == null) {
            // That call never came: the handler comes after the runner is done.
            handle(due);
        }
        runOneSecondFallbacks();

        assertDeletedOnceOnTime(KEY, due);
        assertDeletedOnceNotEarly(AT_FIRST, FIRST);
        assertDeletedOnceNotEarly(AT_SECOND, SECOND);
    }

    /** A runner that ran twice (Express executions run at least once): the duplicate begins at any call of the first. */
    static Stream<Arguments> duplicateAtEveryRunnerCall() {
        return Stream.of(RunnerCall.values()).flatMap(call -> IntStream.rangeClosed(1, 4).mapToObj(nth -> Arguments.of(call, nth)));
    }

    @ParameterizedTest(name = "duplicate begins before {0} #{1}")
    @MethodSource("duplicateAtEveryRunnerCall")
    void minuteRunnerRunTwice_deletesNothingTwiceAndNothingEarly_andALateItemStillOnce(RunnerCall call, int nth) {
        BucketInput runner = plannedRunner();
        BucketWorker duplicate = new BucketWorker(index, table, executions, clock, clock, pool);
        index.beforeCall(call.name(), nth, () -> assertSucceeded(runners.run(duplicate, runner)));
        // The late item comes while both may be running: just before the mark is raised to a second the second time.
        index.beforeCall(RunnerCall.advanceThrough.name(), 2, () -> handleOnce(M + 50));

        work(runner);
        if (handledAt == null) {
            handle(M + 50);
        }
        runOneSecondFallbacks();

        assertDeletedOnceNotEarly(AT_FIRST, FIRST);
        assertDeletedOnceNotEarly(AT_SECOND, SECOND);
        assertDeletedOnceNotEarly(KEY, M + 50);
        assertThat(index.runnerMark(MINUTE).through()).as("the mark never went back").isGreaterThanOrEqualTo(SECOND);
    }

    /**
     * A runner that failed halfway (its last delete kept failing past its retries), run again by the
     * bucket's execution, with a late item handled at every call of the new run: the new run goes on from
     * the mark (the second it failed on, prepared again), never asking again for what is past; each item
     * once.
     */
    static Stream<Arguments> retryAtEveryRunnerCall() {
        return Stream.of(RunnerCall.values()).flatMap(call -> IntStream.rangeClosed(1, 6).mapToObj(nth -> Arguments.of(call, nth)));
    }

    @ParameterizedTest(name = "handler before the retry's {0} #{1}")
    @MethodSource("retryAtEveryRunnerCall")
    void minuteRunnerThatFailedHalfway_runAgain_finishesTheMinute_andALateItemOnce(RunnerCall call, int nth) {
        BucketInput runner = plannedRunner();
        ItemDeleter failingOnSecond = (t, key, attribute, ttl) -> {
            if (key.equals(AT_SECOND)) {
                throw new IllegalStateException("InternalServerError");
            }
            return table.deleteIfUnchanged(t, key, attribute, ttl);
        };
        BucketWorker dying = new BucketWorker(index, failingOnSecond, executions, clock, clock, pool);
        clock.set(runner.wakeAt());
        assertFailedOnItsDeletes(runners.run(dying, runner));
        assertThat(table.contains(AT_SECOND)).isTrue();
        // The execution retries its runner: a new run, a second later.
        clock.advance(Duration.ofSeconds(1));
        long due = M + 50;
        index.beforeCall(call.name(), index.callsOf(call.name()) + nth, () -> handleOnce(due));

        assertSucceeded(runners.run(worker, runner));
        if (handledAt == null) {
            handle(due);
        }
        runOneSecondFallbacks();

        assertDeletedOnceNotEarly(AT_FIRST, FIRST);
        assertDeletedOnceNotEarly(AT_SECOND, SECOND);
        assertDeletedOnceOnTime(KEY, due);
        assertThat(table.attempts).as("the new run began at the mark: the second before it is not asked for again")
                .filteredOn(d -> d.key().equals(AT_FIRST)).hasSize(1);
    }

    /**
     * The one interleaving the calls above do not split: the handler writes while the runner waits for a
     * second it has prepared (its mark is at that second). The handler deletes the item itself at its TTL;
     * the runner's read did not include it.
     */
    @Test
    void minuteRunner_entryWrittenWhileItWaitsForAPreparedSecond_isDeletedOnceAtItsTtlByTheHandler() {
        BucketInput runner = plannedRunner();
        clock.set(runner.wakeAt());
        RunnerOnEngine.Run run = runners.start(worker, runner);
        clock.set(Instant.ofEpochSecond(FIRST - 1));
        RunnerState prepared = run.waitingWith();
        assertThat(prepared).as("prepared: it waits for the second to delete it")
                .extracting(RunnerState::phase, RunnerState::target).containsExactly(RunnerState.Phase.DELETE, FIRST);

        BucketScheduler.Placement placement = handle(FIRST);
        assertSucceeded(run.finish());

        assertThat(placement.outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
        assertThat(prepared.entries()).extracting(IndexEntry::key).containsExactly(AT_FIRST);
        assertDeletedOnceOnTime(KEY, FIRST);
    }

    // ------------------------------------------------------------------------------------------------
    // The handler's steps, with a runner step (or a whole runner) at each

    /** Where a runner's work comes, relative to the handler's steps. */
    enum Point {
        /** Before the handler wrote its entry. */
        BEFORE_WRITE,
        /** After the write, before the handler starts (or finds) the minute bucket. */
        AFTER_WRITE_BEFORE_START,
        /** After the start, before the handler reads the runner's mark. */
        AFTER_START_BEFORE_MARK_READ,
        /** After the handler read the mark. */
        AFTER_MARK_READ
    }

    @ParameterizedTest
    @EnumSource(Point.class)
    void minuteRunnerAtAnyPointOfTheHandler_deletesTheItemOnceAtItsTtl(Point point) {
        long due = M + 20;
        BucketInput runner = plannedRunner();
        Runnable run = () -> work(runner);
        handleAt(point, due, run);
        runOneSecondFallbacks();

        assertDeletedOnceOnTime(KEY, due);
    }

    /**
     * A one-second fallback's own seal protocol: the item falls in the gap a minute's runner skipped, so
     * the handler hands it to the one-second bucket holding its second, whose execution runs at any
     * point of the handler's steps; or the one-second bucket had already sealed and read (it waits for
     * its second) when the handler wrote.
     */
    enum FallbackPoint { BEFORE_WRITE, BEFORE_ITS_START, BEFORE_ITS_SEAL_READ, AFTER_ITS_SEAL_READ, SEALED_AND_WAITING }

    @ParameterizedTest
    @EnumSource(FallbackPoint.class)
    void oneSecondFallback_executionAtAnyPoint_deletesTheItemOnceAtItsTtl(FallbackPoint point) {
        long due = M + 30;
        BucketInput runner = plannedRunner();
        clock.set(runner.wakeAt());
        RunnerOnEngine.Run minuteRunner = runners.start(worker, runner);
        clock.set(Instant.ofEpochSecond(FIRST - 1));
        assertThat(index.runnerMark(MINUTE)).as("the runner skips the gap (+25, +40)").isEqualTo(new RunnerMark(true, FIRST, SECOND));
        Bucket second = Bucket.containing(TABLE, BucketLevel.SECOND, due);
        BucketInput fallback = BucketInput.first(second, "ttl", clock.instant());
        // Another late item already started the fallback; its execution is waiting.
        executions.start(fallback.executionName(), fallback.toJson());
        Runnable execution = () -> runExecution(fallback);
        RunnerOnEngine.Run[] waiting = new RunnerOnEngine.Run[1];
        switch (point) {
            case BEFORE_WRITE -> index.beforeNext("putChunk", execution);
            case BEFORE_ITS_START -> executions.beforeNextStart(execution);
            case BEFORE_ITS_SEAL_READ -> index.beforeNext("isSealed", execution);
            case AFTER_ITS_SEAL_READ -> { }
            case SEALED_AND_WAITING -> {
                clock.set(fallback.wakeAt());
                waiting[0] = runners.start(worker, fallback);
            }
        }

        BucketScheduler.Placement placement = handle(due);
        if (point == FallbackPoint.AFTER_ITS_SEAL_READ) {
            assertThat(placement).isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, second.executionName()));
            execution.run();
        }
        if (waiting[0] != null) {
            assertThat(placement.outcome()).isEqualTo(BucketScheduler.Outcome.DELETED);
            assertThat(waiting[0].waitingWith().phase()).isEqualTo(RunnerState.Phase.DELETE);
            assertThat(assertSucceeded(waiting[0].finish()).path(BucketWorkflow.ITEMS).asInt()).as("read before the write").isZero();
        }
        assertSucceeded(minuteRunner.finish());

        assertDeletedOnceOnTime(KEY, due);
    }

    // ------------------------------------------------------------------------------------------------
    // The minute's early part: the seconds before its planned runner wakes, with a runner and a mark of their own

    /** An item of the early part already indexed when its runner begins. */
    private static final ItemKey AT_EARLY = key("at-early");
    private static final long EARLY_DUE = M + 5;

    /**
     * Where the late item falls in the early part (the main part works from {@code FIRST - 10}): before the
     * early item, on its second, in the gap after it, on the part's last second, and on the main part's
     * first second; the handler comes just before any call of the early part's runner, or after it is done.
     */
    static Stream<Arguments> lateItemAtEveryEarlyRunnerCall() {
        return atEveryCall(4, M + 2, EARLY_DUE, M + 8, FIRST - 11, FIRST - 10);
    }

    @ParameterizedTest(name = "item at +{0}s, handler before the early runner's {1} #{2}")
    @MethodSource("lateItemAtEveryEarlyRunnerCall")
    void earlyPart_lateItemHandledBeforeAnyOfItsRunnersCalls_everyItemDeletedOnceOnTime(long offset, RunnerCall call, int nth) {
        long due = M + offset;
        BucketInput main = plannedRunner();
        BucketInput early = earlyPartFor(main);
        if (call != null) {
            index.beforeCall(call.name(), index.callsOf(call.name()) + nth, () -> handleOnce(due));
        }

        work(early);
        executions.close(early.executionName());
        if (handledAt == null) {
            handle(due);
        }
        work(main);
        runOneSecondFallbacks();

        assertDeletedOnceOnTime(KEY, due);
        assertDeletedOnceNotEarly(AT_EARLY, EARLY_DUE);
        assertDeletedOnceNotEarly(AT_FIRST, FIRST);
        assertDeletedOnceNotEarly(AT_SECOND, SECOND);
        assertThat(table.attempts).as("the main part's runner never works the early part's seconds: no delete of its item"
                        + " asked once the main part woke (a one-second fallback of its second may ask again, at it)")
                .filteredOn(d -> d.key().equals(AT_EARLY)).isNotEmpty()
                .allSatisfy(d -> assertThat(d.at()).isBefore(main.wakeAt()));
    }

    /** The early part's runner ran twice (Express executions run at least once): the duplicate begins at any call of the first. */
    @ParameterizedTest(name = "duplicate begins before {0} #{1}")
    @MethodSource("duplicateAtEveryRunnerCall")
    void earlyPartRunTwice_deletesNothingTwiceAndNothingEarly_andALateItemStillOnce(RunnerCall call, int nth) {
        BucketInput main = plannedRunner();
        BucketInput early = earlyPartFor(main);
        BucketWorker duplicate = new BucketWorker(index, table, executions, clock, clock, pool);
        index.beforeCall(call.name(), index.callsOf(call.name()) + nth, () -> assertSucceeded(runners.run(duplicate, early)));
        index.beforeCall(RunnerCall.advanceThrough.name(), index.callsOf(RunnerCall.advanceThrough.name()) + 1,
                () -> handleOnce(M + 10));

        work(early);
        if (handledAt == null) {
            handle(M + 10);
        }
        work(main);
        runOneSecondFallbacks();

        assertDeletedOnceNotEarly(AT_EARLY, EARLY_DUE);
        assertDeletedOnceNotEarly(KEY, M + 10);
        assertDeletedOnceNotEarly(AT_FIRST, FIRST);
        assertDeletedOnceNotEarly(AT_SECOND, SECOND);
        assertThat(index.runnerMark(MINUTE, MinutePart.EARLY).through()).as("the mark never went back").isGreaterThanOrEqualTo(EARLY_DUE);
    }

    /**
     * Items of the early part handled at any point of the early part's runner being started by another
     * handler: the runner runs before this handler writes, between its write and its start of the part,
     * between that and its read of the part's mark, or after it.
     */
    @ParameterizedTest
    @EnumSource(Point.class)
    void earlyPartRunnerAtAnyPointOfTheHandler_deletesTheItemOnceAtItsTtl(Point point) {
        long due = M + 9;
        BucketInput main = plannedRunner();
        BucketInput early = earlyPartFor(main);
        clock.set(early.wakeAt());
        Runnable run = () -> work(early);
        handleAt(point, due, run);
        work(main);
        runOneSecondFallbacks();

        assertDeletedOnceOnTime(KEY, due);
        assertDeletedOnceNotEarly(AT_EARLY, EARLY_DUE);
    }

    /**
     * A coarse bucket's cascade into a minute the handler has planned for a later second than the hour's
     * own items: the cascade starts the minute's early part for them, or (cascading first) plans the
     * minute for its first item, and the handler's later item still goes to the minute. Every item at
     * its second.
     */
    @ParameterizedTest(name = "cascade first: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void hourCascadingIntoAMinutePlannedLater_startsItsEarlyPart_andEveryItemIsDeletedAtItsSecond(boolean cascadeFirst) {
        Bucket hour = Bucket.containing(TABLE, BucketLevel.HOUR, T + 2 * 3_600);
        long minute = hour.start() + 60;
        ItemKey viaHour = key("via-hour");
        long hourItemDue = minute + 3;
        long lateDue = minute + 30;
        table.put(viaHour, Long.toString(hourItemDue));
        index.putChunk(TABLE, hourItemDue, "via-hour", List.of(new IndexEntry(viaHour, Long.toString(hourItemDue), hourItemDue)));
        BucketInput hourInput = BucketInput.first(hour, "ttl", NOW);
        executions.start(hourInput.executionName(), hourInput.toJson());
        Runnable cascade = () -> runExecution(hourInput);

        if (cascadeFirst) {
            cascade.run();
        }
        // The late item comes within 70 minutes of its second: the handler places it in the minute directly.
        clock.set(Instant.ofEpochSecond(lateDue - 30 * 60));
        handle(lateDue);
        if (!cascadeFirst) {
            cascade.run();
        }
        Bucket minuteBucket = Bucket.containing(TABLE, BucketLevel.MINUTE, minute);
        for (String name : new ArrayList<>(executions.inputs.keySet())) {
            if (name.startsWith(minuteBucket.executionName()) && executions.running(name)) {
                runExecution(inputOf(name));
            }
        }
        runOneSecondFallbacks();

        assertThat(executions.running(minuteBucket.executionName() + "-e")).isFalse();
        assertThat(executions.inputs.containsKey(minuteBucket.executionName() + "-e")).as("an early part").isEqualTo(!cascadeFirst);
        assertDeletedOnceOnTime(KEY, lateDue);
        assertThat(table.deletes).filteredOn(d -> d.key().equals(viaHour)).singleElement()
                .satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(hourItemDue)));
    }

    /**
     * The minute's early part, started by the handler for {@link #AT_EARLY} (due before the main part
     * wakes), which it indexed; this test runs the part's runner itself.
     */
    private BucketInput earlyPartFor(BucketInput main) {
        assertThat(main.from()).isEqualTo(FIRST - BucketInput.PLAN_SLACK.toSeconds());
        BucketInput early = BucketInput.early(MINUTE, "ttl", clock.instant(), main.from());
        runByTest.add(early.executionName());
        table.put(AT_EARLY, Long.toString(EARLY_DUE));
        BucketScheduler.Request request = new BucketScheduler.Request(TABLE, "ttl", AT_EARLY, Long.toString(EARLY_DUE),
                Instant.ofEpochSecond(EARLY_DUE));
        assertThat(scheduler.schedule(List.of(request)).get(request).join())
                .isEqualTo(new BucketScheduler.Placement(BucketScheduler.Outcome.INDEXED, early.executionName()));
        assertThat(executions.inputs).containsEntry(early.executionName(), early.toJson());
        return early;
    }

    // ------------------------------------------------------------------------------------------------
    // Healing: a minute bucket's execution that ended unfinished, and its successor

    /**
     * A minute bucket whose first execution was stopped before its runner began; a late handler write
     * races its successor, which the healer (told by EventBridge) starts at any point of the handler's
     * steps and which runs either at once or only after the handler is done. The item is deleted once,
     * never early, and one successor runs whoever starts it.
     */
    @ParameterizedTest
    @MethodSource("pointsAndSuccessorTimings")
    void minuteStoppedBeforeItsRunnerBegan_successorRacingALateWrite_deletesTheItemOnceAtItsTtl(Point point, boolean successorRunsAtOnce) {
        long due = M + 20;
        BucketInput stopped = plannedRunner();
        executions.fail(stopped.executionName());
        BucketInput successor = stopped.nextGeneration(NOW, Duration.ZERO);
        BucketGenerations healer = new BucketGenerations(executions, clock);
        Runnable notice = () -> {
            healer.replace(stopped, ThrottleBackoff.noRetries());
            if (successorRunsAtOnce) {
                runExecution(successor);
            }
        };
        BucketScheduler.Placement placement = handleAt(point, due, notice);
        if (point == Point.AFTER_MARK_READ) {
            assertThat(placement.execution()).as("the handler started the successor itself").isEqualTo(successor.executionName());
        }
        if (executions.running(successor.executionName())) {
            runExecution(successor);
        }
        runOneSecondFallbacks();

        assertDeletedOnceOnTime(KEY, due);
        assertThat(executions.executionsOf(MINUTE)).as("the stopped execution and one successor").isEqualTo(2);
    }

    static Stream<Arguments> pointsAndSuccessorTimings() {
        return Stream.of(Point.values()).flatMap(point -> Stream.of(Arguments.of(point, true), Arguments.of(point, false)));
    }

    /**
     * A minute whose execution failed after its runner had deleted one of its items and failed on the
     * other (every retry of the runner too): nobody else needs the bucket, only the healer comes back to
     * it, while a late item for a second the runner had passed arrives. The successor deletes what is
     * left; the late item is deleted by the handler, which sees the mark. Each item once, none early.
     */
    @Test
    void minuteThatFailedAfterItsRunnerPassedASecond_successorDeletesTheRest_andTheLateItemOnce() {
        BucketInput first = plannedRunner();
        ItemDeleter failingOnSecond = (t, key, attribute, ttl) -> {
            if (key.equals(AT_SECOND)) {
                throw new IllegalStateException("InternalServerError");
            }
            return table.deleteIfUnchanged(t, key, attribute, ttl);
        };
        clock.set(first.wakeAt());
        assertFailedOnItsDeletes(runners.run(new BucketWorker(index, failingOnSecond, executions, clock, clock, pool), first));
        executions.fail(first.executionName());

        BucketScheduler.Placement placement = handle(SECOND);
        assertThat(placement.outcome()).as("marked through its second: the handler deletes the late item").isEqualTo(BucketScheduler.Outcome.DELETED);
        new BucketGenerations(executions, clock).replace(first, ThrottleBackoff.noRetries());
        runExecution(first.nextGeneration(clock.instant(), Duration.ZERO));

        assertDeletedOnceNotEarly(AT_FIRST, FIRST);
        assertDeletedOnceNotEarly(AT_SECOND, SECOND);
        assertDeletedOnceNotEarly(KEY, SECOND);
        assertThat(executions.executionsOf(MINUTE)).isEqualTo(2);
    }

    // ------------------------------------------------------------------------------------------------
    // Cascades: an hour or a day bucket at every point of the handler's steps

    /** Every coarse level with a lead that puts the item in a bucket of that level, at every point. */
    static Stream<Arguments> coarseBucketsAtEveryPoint() {
        Map<BucketLevel, Long> leads = Map.of(BucketLevel.HOUR, 2 * 3_600L, BucketLevel.DAY, 2 * 86_400L);
        return Stream.of(BucketLevel.HOUR, BucketLevel.DAY)
                .flatMap(level -> Stream.of(CascadePoint.values()).map(point -> Arguments.of(level, leads.get(level), point)));
    }

    /** Where a coarse bucket's cascade comes, relative to the handler's steps. */
    enum CascadePoint { BEFORE_WRITE, BEFORE_WRITE_STILL_OPEN, AFTER_WRITE_BEFORE_START, AFTER_START_BEFORE_SEAL_READ, AFTER_SEAL_READ }

    @ParameterizedTest(name = "{0} bucket, cascade {2}")
    @MethodSource("coarseBucketsAtEveryPoint")
    void coarseBucket_cascadeAtAnyPoint_stillDeletesTheItemOnceAtItsTtl(BucketLevel level, long lead, CascadePoint point) {
        long due = T + lead;
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
        assertThat(placement.outcome()).as("indexed, with the coarse bucket or a finer one").isEqualTo(BucketScheduler.Outcome.INDEXED);
        if (point == CascadePoint.AFTER_SEAL_READ) {
            assertThat(placement.execution()).isEqualTo(coarse.executionName());
            cascade.run();
        }
        // Down the wheel: each finer bucket holding the second runs once its parent has cascaded.
        for (Bucket child = coarse.finerContaining(due); ; child = child.finerContaining(due)) {
            assertThat(executions.running(child.executionName()))
                    .as("%s's execution, started by the cascade or by the handler", child).isTrue();
            runExecution(inputOf(child.executionName()));
            if (child.level() == BucketLevel.MINUTE) {
                break;
            }
        }

        assertThat(table.deletes).as("successful deletes").singleElement()
                .satisfies(d -> assertThat(d.at()).isEqualTo(Instant.ofEpochSecond(due)));
    }

    // ------------------------------------------------------------------------------------------------

    /** The minute's first execution, planned for {@link #FIRST}, started, with the two indexed items. */
    private BucketInput plannedRunner() {
        for (Map.Entry<ItemKey, Long> item : Map.of(AT_FIRST, FIRST, AT_SECOND, SECOND).entrySet()) {
            table.put(item.getKey(), Long.toString(item.getValue()));
            index.putChunk(TABLE, item.getValue(), "earlier-" + item.getValue(),
                    List.of(new IndexEntry(item.getKey(), Long.toString(item.getValue()), item.getValue())));
        }
        BucketInput planned = BucketInput.planned(MINUTE, "ttl", NOW, FIRST);
        executions.start(planned.executionName(), planned.toJson());
        assertThat(planned.wakeAt()).isEqualTo(Instant.ofEpochSecond(FIRST - BucketInput.PLAN_SLACK.toSeconds() - 1));
        return planned;
    }

    /** {@link #handle}, unless the late item was handled already (a hook left behind fires later, or not at all). */
    private void handleOnce(long due) {
        if (handledAt == null) {
            handle(due);
        }
    }

    /** The handler's batch for the late item due at {@code due}: the item is written to the table first. */
    /** The handler handles an item due at {@code due}, with {@code other} run at {@code point} of it. */
    private BucketScheduler.Placement handleAt(Point point, long due, Runnable other) {
        switch (point) {
            case BEFORE_WRITE -> index.beforeNext("putChunk", other);
            case AFTER_WRITE_BEFORE_START -> executions.beforeNextStart(other);
            case AFTER_START_BEFORE_MARK_READ -> index.beforeNext("runnerMark", other);
            case AFTER_MARK_READ -> { }
        }
        BucketScheduler.Placement placement = handle(due);
        if (point == Point.AFTER_MARK_READ) {
            other.run();
        }
        return placement;
    }

    private BucketScheduler.Placement handle(long due) {
        handledAt = clock.instant();
        table.put(KEY, Long.toString(due));
        int writes = index.writeTimes.size();
        BucketScheduler.Placement placement = schedule(due);
        if (index.writeTimes.size() > writes) {
            // What ran between the handler's clock read and its write (inside a hook) took that long.
            handledAt = index.writeTimes.get(writes);
        }
        return placement;
    }

    private BucketScheduler.Placement schedule(long due) {
        BucketScheduler.Request request = new BucketScheduler.Request(TABLE, "ttl", KEY, Long.toString(due), Instant.ofEpochSecond(due));
        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> result = scheduler.schedule(List.of(request));
        return result.get(request).join();
    }

    /** Runs every one-second fallback and minute's early part the handler started that still runs. */
    private void runOneSecondFallbacks() {
        for (String name : new ArrayList<>(executions.inputs.keySet())) {
            if (isFallback(name) && !runByTest.contains(name) && executions.running(name)) {
                runExecution(inputOf(name));
            }
        }
    }

    /** A one-second bucket's execution, or a minute's early part's: what the handler starts besides the minute. */
    private boolean isFallback(String name) {
        BucketInput input = inputOf(name);
        return input.bucket().level() == BucketLevel.SECOND || input.part() == MinutePart.EARLY;
    }

    /** The input the execution named {@code name} was started with. */
    private BucketInput inputOf(String name) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> payload = new com.fasterxml.jackson.databind.ObjectMapper().readValue(executions.inputs.get(name), Map.class);
            return BucketInput.fromPayload(payload);
        } catch (java.io.IOException e) {
            throw new AssertionError(name + " has no readable input", e);
        }
    }

    /** The bucket's execution: its Wait ends, its runner works the bucket, the execution closes. */
    private void runExecution(BucketInput input) {
        work(input);
        executions.close(input.executionName());
    }

    /** The execution's Wait ends and its runner, on the engine, works the bucket; the execution stays open. */
    private void work(BucketInput input) {
        if (clock.instant().isBefore(input.wakeAt())) {
            clock.set(input.wakeAt());
        }
        assertSucceeded(runners.run(worker, input));
    }

    /** The runner succeeded; its output. */
    private static com.fasterxml.jackson.databind.JsonNode assertSucceeded(RunOutcome outcome) {
        assertThat(outcome.status()).as("the runner's end: %s %s", outcome.error(), outcome.cause())
                .isEqualTo(RunOutcome.Status.SUCCEEDED);
        return outcome.output();
    }

    /** The runner failed: its Step kept failing on deletes past the runner's own retries. */
    private static void assertFailedOnItsDeletes(RunOutcome outcome) {
        assertThat(outcome.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(outcome.error()).isEqualTo(BucketWorker.BucketFailedException.class.getName());
    }

    private void assertDeletedOnceNotEarly(ItemKey key, long due) {
        assertThat(table.contains(key)).as("%s gone", key).isFalse();
        assertThat(table.deletes).filteredOn(d -> d.key().equals(key)).as("%s's successful deletes", key).singleElement()
                .satisfies(d -> assertThat(d.at()).as("deleted at or after its TTL").isAfterOrEqualTo(Instant.ofEpochSecond(due)));
    }

    /** Deleted once, not before its TTL, and within a second of its TTL or of its handling, whichever came last. */
    private void assertDeletedOnceOnTime(ItemKey key, long due) {
        assertDeletedOnceNotEarly(key, due);
        Instant deleted = table.deletes.stream().filter(d -> d.key().equals(key)).findFirst().orElseThrow().at();
        Instant due_ = Instant.ofEpochSecond(due);
        Instant from = handledAt != null && handledAt.isAfter(due_) ? handledAt : due_;
        assertThat(Duration.between(from, deleted)).as("late by").isLessThan(Duration.ofSeconds(1));
    }
}
