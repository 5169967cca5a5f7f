package dev.punctual.windowed;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Sleeper;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The bucket function's core: one step of a bucket's runner ({@code run-bucket.asl.json}), the Express
 * execution its {@code expire-bucket} execution runs once its Wait ends. A step gets the bucket and the
 * runner's state and answers either the state of the next step (and when the runner should take it) or
 * the bucket's result. The loop around the steps (take a step, go on while it answers a state, wait until
 * that state's instant) is the runner's own, in its ASL, and nowhere in Java: its tests run that file on the
 * local runtime's engine.
 * <ul>
 *   <li>A day or hour bucket cascades in one step: it seals itself, finds the finer buckets within it
 *       that hold entries and starts their executions (a minute bucket planned for its first due
 *       second, {@link BucketInput#planned}).</li>
 *   <li>A minute bucket is worked one due second at a time. A second before each, the runner
 *       <em>prepares</em> it: raises the minute's mark to it ({@link ScheduleIndex#advanceThrough}: the
 *       seal of every second up to it), reads its entries, then finds the next due second after it and
 *       records that ({@link ScheduleIndex#recordNext}). At the second, it <em>deletes</em> each item
 *       conditionally and concurrently, retrying the deletes that fail a few times
 *       ({@link #DELETE_ATTEMPTS}), then prepares the next second at once when it is a second away or
 *       less, or lets the runner wait until a second before it. So an entry written for a second the
 *       runner has passed, or skipped as empty, is never the runner's: the stream handler reads the mark
 *       and deletes such an item itself, or hands it to a one-second bucket ({@link BucketScheduler}).</li>
 *   <li>A runner run again (its execution retries it, a generation replaces its execution, Express ran it
 *       twice) goes on from its part's mark: every due second before it was deleted before the mark passed
 *       it, so it prepares the mark's own second again (read again, its deletes repeated) and goes on from
 *       there, and each try of a runner cut short gets further than the last.</li>
 *   <li>A one-second bucket (a fallback the handler starts for such an item) is prepared, with its own
 *       seal, and deleted in the same two steps.</li>
 *   <li>A bucket woken early by the one-year cap on executions starts its successor.</li>
 * </ul>
 * Every step can be repeated (the seal and the mark only go up, deletes are conditional, starts are
 * named), so a failed step is simply retried by the runner, a failed runner by the bucket's execution,
 * and a runner that ran twice (Express executions run at least once) deletes nothing twice and nothing
 * early: each delete waits for its item's second.
 */
public final class BucketWorker {

    /**
     * What a runner did with its bucket; becomes the execution's output ({@link #toOutput}). Each outcome
     * has its factory, so every figure is set by name: an expired bucket's counts, a cascade's children.
     */
    public static final class Result {

        private final String outcome;
        private final RunnerState.Counts counts;
        private final int buckets;

        private Result(String outcome, RunnerState.Counts counts, int buckets) {
            this.outcome = outcome;
            this.counts = Objects.requireNonNull(counts, "counts");
            this.buckets = buckets;
        }

        /** A minute part or a one-second bucket worked to its end; {@code counts} is what its runner did. */
        public static Result expired(RunnerState.Counts counts) {
            return new Result(BucketWorkflow.OUTCOME_EXPIRED, counts, 0);
        }

        /** A day or hour bucket that started the executions of the {@code buckets} finer buckets holding entries. */
        public static Result cascaded(int buckets) {
            return new Result(BucketWorkflow.OUTCOME_CASCADED, RunnerState.Counts.NONE, buckets);
        }

        /** A bucket woken early by the one-year cap on executions: it started its successor, one bucket. */
        public static Result continued() {
            return new Result(BucketWorkflow.OUTCOME_CONTINUED, RunnerState.Counts.NONE, 1);
        }

        /** {@link BucketWorkflow#OUTCOME_EXPIRED}, {@link BucketWorkflow#OUTCOME_CASCADED} or {@link BucketWorkflow#OUTCOME_CONTINUED}. */
        public String outcome() {
            return outcome;
        }

        /** Entries read, each item and TTL once per due second; 0 unless expired. */
        public int items() {
            return counts.items();
        }

        /** Items deleted; 0 unless expired. */
        public int expired() {
            return counts.expired();
        }

        /** Items whose TTL had changed, or that were gone, so not deleted; 0 unless expired. */
        public int superseded() {
            return counts.superseded();
        }

        /** Due seconds worked; 0 unless expired. */
        public int seconds() {
            return counts.seconds();
        }

        /** Bucket executions started: a cascade's children, or a continued bucket's successor; 0 when expired. */
        public int buckets() {
            return buckets;
        }

        /** The output map, with {@link BucketWorkflow}'s field names. */
        public Map<String, Object> toOutput() {
            Map<String, Object> output = new LinkedHashMap<>();
            output.put(BucketWorkflow.OUTCOME, outcome);
            if (BucketWorkflow.OUTCOME_EXPIRED.equals(outcome)) {
                output.put(BucketWorkflow.ITEMS, items());
                output.put(BucketWorkflow.EXPIRED, expired());
                output.put(BucketWorkflow.SUPERSEDED, superseded());
                output.put(BucketWorkflow.SECONDS, seconds());
            } else {
                output.put(BucketWorkflow.BUCKETS, buckets);
            }
            return output;
        }
    }

    /** What one step did: the runner's next state, or (when it is {@code null}) the bucket's result. */
    public record Step(RunnerState next, Result result) {

        static Step then(RunnerState next) {
            return new Step(next, null);
        }

        static Step done(Result result) {
            return new Step(null, result);
        }

        /** Whether the bucket is done. */
        public boolean done() {
            return next == null;
        }
    }

    /**
     * How many times one invocation tries each delete (the first and three retries of those that fail)
     * before it reports the bucket failed and its execution retries the whole bucket.
     */
    public static final int DELETE_ATTEMPTS = 4;
    /** The first retry's pause is drawn from half this to this; it doubles each round. */
    static final Duration FIRST_RETRY_PAUSE = Duration.ofMillis(100);

    private final ScheduleIndex index;
    private final ItemDeleter deleter;
    private final Executions buckets;
    private final BucketGenerations generations;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Executor pool;
    private final BucketPhases phases;

    /**
     * @param buckets the {@code expire-bucket} state machine's executions, for children and successors
     * @param pool runs deletes and starts concurrently
     */
    public BucketWorker(ScheduleIndex index, ItemDeleter deleter, Executions buckets, Clock clock, Sleeper sleeper, Executor pool) {
        this(index, deleter, buckets, clock, sleeper, pool, BucketPhases.NONE);
    }

    /** A worker that tells {@code phases} when each due second's work passes a phase. */
    public BucketWorker(ScheduleIndex index, ItemDeleter deleter, Executions buckets, Clock clock, Sleeper sleeper, Executor pool,
            BucketPhases phases) {
        this.phases = Objects.requireNonNull(phases, "phases");
        this.index = Objects.requireNonNull(index, "index");
        this.deleter = Objects.requireNonNull(deleter, "deleter");
        this.buckets = Objects.requireNonNull(buckets, "buckets");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.generations = new BucketGenerations(buckets, clock);
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    /**
     * One step of the bucket's runner: the first when {@code state} is {@code null}.
     *
     * @throws BucketFailedException when some deletes or starts failed; taking the step again is safe
     */
    public Step step(BucketInput input, RunnerState state) {
        Bucket bucket = input.bucket();
        if (state != null) {
            return switch (state.phase()) {
                case PREPARE -> prepare(input, state.target(), state.counts());
                case DELETE -> delete(input, state);
            };
        }
        Instant now = clock.instant();
        if (input.wokeForHorizon() && now.isBefore(bucket.naturalWake())) {
            BucketInput successor = input.successor(now);
            buckets.start(successor.executionName(), successor.toJson());
            return Step.done(Result.continued());
        }
        return switch (bucket.level()) {
            case SECOND -> prepare(input, bucket.start(), RunnerState.Counts.NONE);
            case MINUTE -> {
                // Begun: from now on every entry of the part is found by a read that follows a mark. The
                // seconds before its first are never this runner's (its early part's, or the handler's).
                RunnerMark mark = index.begin(bucket, input.part());
                if (mark.through() >= input.from() && mark.through() < input.until()) {
                    // A runner of this part got this far before (this runner's earlier try, the generation
                    // this one replaces, a duplicate): it deleted every due second before its mark, and
                    // sealed and read the mark's own second, perhaps without deleting it. Go on from there
                    // rather than walk the part again, which a runner cut short again and again never ends.
                    yield toward(input, mark.through(), RunnerState.Counts.NONE);
                }
                yield after(input, input.from() - 1, RunnerState.Counts.NONE);
            }
            case HOUR -> {
                index.seal(bucket, clock.instant());
                Map<Bucket, Long> children = new LinkedHashMap<>();
                for (long minute = bucket.start(); minute < bucket.end(); minute += BucketLevel.MINUTE.width()) {
                    OptionalLong first = index.nextDueSecond(bucket.table(), minute, minute - 1);
                    if (first.isPresent()) {
                        children.put(bucket.finerContaining(minute), first.getAsLong());
                    }
                }
                yield Step.done(cascade(children, input.ttlAttribute()));
            }
            case DAY -> {
                index.seal(bucket, clock.instant());
                Map<Bucket, Long> children = new LinkedHashMap<>();
                for (long hour = bucket.start(); hour < bucket.end(); hour += BucketLevel.HOUR.width()) {
                    if (anyMinuteHoldsEntries(bucket.table(), hour)) {
                        children.put(bucket.finerContaining(hour), hour);
                    }
                }
                yield Step.done(cascade(children, input.ttlAttribute()));
            }
        };
    }

    /** The next due second of a minute part after {@code after}, if there is one before the part's end. */
    private OptionalLong nextInPart(BucketInput minute, long after) {
        OptionalLong next = index.nextDueSecond(minute.bucket().table(), minute.bucket().start(), after);
        return next.isPresent() && next.getAsLong() < minute.until() ? next : OptionalLong.empty();
    }

    /**
     * A minute part's runner after {@code after}: finds and records the next due second, then prepares it
     * at once if it is a second away or less, or has the runner wait until a second before it.
     */
    private Step after(BucketInput minute, long after, RunnerState.Counts counts) {
        OptionalLong next = nextInPart(minute, after);
        index.recordNext(minute.bucket(), minute.part(), next.orElse(minute.until()));
        if (next.isEmpty()) {
            return Step.done(Result.expired(counts));
        }
        return toward(minute, next.getAsLong(), counts);
    }

    /** Prepares {@code second} now if it is a second away or less, else has the runner wait until then. */
    private Step toward(BucketInput input, long second, RunnerState.Counts counts) {
        Instant prepareAt = Instant.ofEpochSecond(second).minus(BucketWorkflow.WARM_LEAD);
        if (!clock.instant().isBefore(prepareAt)) {
            return prepare(input, second, counts);
        }
        return Step.then(new RunnerState(RunnerState.Phase.PREPARE, second, prepareAt, null, input.until(), counts));
    }

    /**
     * Seals {@code second} (a minute part's mark raised to it, or a one-second bucket's own seal), reads
     * its entries and, in a minute, the part's next due second after it; the runner then waits for the
     * second.
     */
    private Step prepare(BucketInput input, long second, RunnerState.Counts counts) {
        Bucket bucket = input.bucket();
        Bucket one = Bucket.containing(bucket.table(), BucketLevel.SECOND, second);
        Instant invoked = clock.instant();
        phases.invoked(one, invoked);
        if (bucket.level() == BucketLevel.MINUTE) {
            index.advanceThrough(bucket, input.part(), second);
        } else {
            index.seal(one, invoked);
        }
        phases.sealed(one, clock.instant());
        List<IndexEntry> entries = distinct(index.entriesDue(bucket.table(), second));
        phases.read(one, entries.size(), clock.instant());
        long next = input.until();
        if (bucket.level() == BucketLevel.MINUTE) {
            next = nextInPart(input, second).orElse(input.until());
            index.recordNext(bucket, input.part(), next);
        }
        return Step.then(new RunnerState(RunnerState.Phase.DELETE, second, Instant.ofEpochSecond(second),
                RunnerState.carried(entries), next, counts));
    }

    /** At its second, deletes what was read for it; then on to the next due second, or done. */
    private Step delete(BucketInput input, RunnerState state) {
        Bucket bucket = input.bucket();
        long second = state.target();
        Bucket one = Bucket.containing(bucket.table(), BucketLevel.SECOND, second);
        sleeper.sleepUntil(clock, Instant.ofEpochSecond(second));
        phases.woke(one, clock.instant());
        List<IndexEntry> entries = state.entries() != null ? state.entries()
                : distinct(index.entriesDue(bucket.table(), second));
        RunnerState.Counts counts = deleteAll(one, entries, input.ttlAttribute(), state.counts());
        if (state.next() >= input.until()) {
            return Step.done(Result.expired(counts));
        }
        return toward(input, state.next(), counts);
    }

    /** The entries of a second, each item and TTL once (a re-batched record is indexed twice). */
    private static List<IndexEntry> distinct(List<IndexEntry> entries) {
        Map<ItemAtTtl, IndexEntry> unique = new LinkedHashMap<>();
        for (IndexEntry entry : entries) {
            unique.putIfAbsent(new ItemAtTtl(entry.key(), entry.ttl()), entry);
        }
        return new ArrayList<>(unique.values());
    }

    private boolean anyMinuteHoldsEntries(String table, long hour) {
        for (long minute = hour; minute < hour + BucketLevel.HOUR.width(); minute += BucketLevel.MINUTE.width()) {
            if (index.nextDueSecond(table, minute, minute - 1).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** Deletes each item conditionally and concurrently, retrying the deletes that failed, and counts them. */
    private RunnerState.Counts deleteAll(Bucket second, List<IndexEntry> items, String ttlAttribute, RunnerState.Counts counts) {
        int expired = 0;
        int superseded = 0;
        List<IndexEntry> pending = new ArrayList<>(items);
        List<Throwable> failures = new ArrayList<>();
        for (int round = 0; round < DELETE_ATTEMPTS && !pending.isEmpty(); round++) {
            if (round > 0) {
                pause(round);
            }
            List<CompletableFuture<ItemDeleter.Result>> deletes = new ArrayList<>(pending.size());
            for (IndexEntry item : pending) {
                deletes.add(CompletableFuture.supplyAsync(
                        () -> deleter.deleteIfUnchanged(second.table(), item.key(), ttlAttribute, item.ttl()), pool));
            }
            List<IndexEntry> failed = new ArrayList<>();
            failures.clear();
            for (int i = 0; i < deletes.size(); i++) {
                try {
                    if (deletes.get(i).join() == ItemDeleter.Result.DELETED) {
                        expired++;
                    } else {
                        superseded++;
                    }
                } catch (CompletionException e) {
                    failed.add(pending.get(i));
                    failures.add(e.getCause());
                }
            }
            pending = failed;
        }
        if (!pending.isEmpty()) {
            throw new BucketFailedException(second, pending.size() + " of " + items.size() + " deletes failed "
                    + DELETE_ATTEMPTS + " times", failures);
        }
        return counts.plus(items.size(), expired, superseded);
    }

    /**
     * Waits before retrying the deletes that failed: "equal jitter", half of a step that doubles each
     * round from 100 ms plus a random share of the other half, so retries spread out yet always pause.
     * Only the failed items are tried again, so a large bucket under a steady rate of errors converges
     * instead of failing whole on every attempt of its execution.
     */
    private void pause(int round) {
        long half = FIRST_RETRY_PAUSE.toMillis() / 2 << (round - 1);
        try {
            sleeper.sleep(Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying a bucket's deletes", e);
        }
    }

    /** Starts each child's live generation, a minute planned for its first due second; {@code children} maps child to that second. */
    private Result cascade(Map<Bucket, Long> children, String ttlAttribute) {
        List<CompletableFuture<Void>> starts = new ArrayList<>(children.size());
        children.forEach((child, firstDue) -> {
            // The child's live generation: running already (the handler or a duplicate cascade started
            // it), finished, or started now; one that ended unfinished is replaced, never trusted. A minute
            // the handler planned for a later second than this bucket's first gets its early part too.
            BucketInput planned = BucketInput.planned(child, ttlAttribute, clock.instant(), firstDue);
            starts.add(CompletableFuture.runAsync(() -> {
                BucketGenerations.Live live = generations.ensure(planned, ThrottleBackoff.noRetries());
                if (child.level() == BucketLevel.MINUTE && live.willRead() && firstDue < live.from()
                        && live.from() < child.end()) {
                    generations.ensure(BucketInput.early(child, ttlAttribute, clock.instant(), live.from()),
                            ThrottleBackoff.noRetries());
                }
            }, pool));
        });
        List<Throwable> failures = new ArrayList<>();
        for (CompletableFuture<Void> start : starts) {
            try {
                start.join();
            } catch (CompletionException e) {
                failures.add(e.getCause());
            }
        }
        if (!failures.isEmpty()) {
            throw new BucketFailedException(null, failures.size() + " of " + children.size() + " child bucket starts failed", failures);
        }
        return Result.cascaded(children.size());
    }

    private record ItemAtTtl(ItemKey key, String ttl) {
    }

    /** Some of a bucket's calls failed; the state machine retries the bucket, which is safe. */
    public static final class BucketFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BucketFailedException(Bucket bucket, String what, List<Throwable> failures) {
            super((bucket == null ? "" : bucket + ": ") + what + "; first: " + failures.get(0), failures.get(0));
            failures.stream().skip(1).limit(4).forEach(this::addSuppressed);
        }
    }
}
