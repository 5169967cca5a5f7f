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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The bucket function's core: what one {@code expire-bucket} execution does once its Wait ends.
 * <ul>
 *   <li>A one-second bucket arrives {@link BucketWorkflow#WARM_LEAD} early, so the function is warm;
 *       it seals the bucket and reads its entries at once, waits for its second, and then deletes each
 *       item conditionally, concurrently, retrying the deletes that fail a few times
 *       ({@link #DELETE_ATTEMPTS}). Sealing and reading ahead leaves only the deletes to the
 *       second itself: at one a second, the seal and the read otherwise queue behind the previous
 *       second's last deletes, and every item of this second waits for them. An item indexed after the
 *       seal is the stream handler's, which deletes it itself at its TTL (the seal protocol,
 *       {@link BucketScheduler}).</li>
 *   <li>A coarse bucket seals itself, finds the finer buckets within it that hold entries and starts
 *       their executions.</li>
 *   <li>A bucket woken early by the one-year cap on executions starts its successor.</li>
 * </ul>
 * Every step can be repeated (the seal is a put, deletes are conditional, starts are named), so a
 * failed invocation is simply retried by the state machine.
 */
public final class BucketWorker {

    /** What one invocation did; becomes the execution's output. */
    public record Result(String outcome, int items, int expired, int superseded, int buckets) {

        /** The output map, with {@link BucketWorkflow}'s field names. */
        public Map<String, Object> toOutput() {
            Map<String, Object> output = new LinkedHashMap<>();
            output.put(BucketWorkflow.OUTCOME, outcome);
            if (BucketWorkflow.OUTCOME_EXPIRED.equals(outcome)) {
                output.put(BucketWorkflow.ITEMS, items);
                output.put(BucketWorkflow.EXPIRED, expired);
                output.put(BucketWorkflow.SUPERSEDED, superseded);
            } else {
                output.put(BucketWorkflow.BUCKETS, buckets);
            }
            return output;
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

    /** A worker that tells {@code phases} when each one-second bucket's work passes a phase. */
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
     * Works one bucket.
     *
     * @throws BucketFailedException when some deletes or starts failed; retrying the bucket is safe
     */
    public Result work(BucketInput input) {
        Bucket bucket = input.bucket();
        Instant now = clock.instant();
        if (input.wokeForHorizon() && now.isBefore(bucket.naturalWake())) {
            BucketInput successor = input.successor(now);
            buckets.start(successor.executionName(), successor.toJson());
            return new Result(BucketWorkflow.OUTCOME_CONTINUED, 0, 0, 0, 1);
        }
        return switch (bucket.level()) {
            case SECOND -> expire(bucket, input.ttlAttribute());
            case MINUTE -> {
                index.seal(bucket, clock.instant());
                List<Bucket> children = new ArrayList<>();
                index.dueSeconds(bucket.table(), bucket.start()).forEach(second -> children.add(bucket.finerContaining(second)));
                yield cascade(children, input.ttlAttribute());
            }
            case HOUR -> {
                index.seal(bucket, clock.instant());
                List<Bucket> children = new ArrayList<>();
                for (long minute = bucket.start(); minute < bucket.end(); minute += BucketLevel.MINUTE.width()) {
                    if (index.hasEntries(bucket.table(), minute)) {
                        children.add(bucket.finerContaining(minute));
                    }
                }
                yield cascade(children, input.ttlAttribute());
            }
            case DAY -> {
                index.seal(bucket, clock.instant());
                List<Bucket> children = new ArrayList<>();
                for (long hour = bucket.start(); hour < bucket.end(); hour += BucketLevel.HOUR.width()) {
                    if (anyMinuteHoldsEntries(bucket.table(), hour)) {
                        children.add(bucket.finerContaining(hour));
                    }
                }
                yield cascade(children, input.ttlAttribute());
            }
        };
    }

    private boolean anyMinuteHoldsEntries(String table, long hour) {
        for (long minute = hour; minute < hour + BucketLevel.HOUR.width(); minute += BucketLevel.MINUTE.width()) {
            if (index.hasEntries(table, minute)) {
                return true;
            }
        }
        return false;
    }

    private Result expire(Bucket bucket, String ttlAttribute) {
        Instant invoked = clock.instant();
        phases.invoked(bucket, invoked);
        index.seal(bucket, invoked);
        phases.sealed(bucket, clock.instant());
        Set<ItemAtTtl> items = new LinkedHashSet<>();
        for (IndexEntry entry : index.entriesDue(bucket.table(), bucket.start())) {
            items.add(new ItemAtTtl(entry.key(), entry.ttl()));
        }
        phases.read(bucket, items.size(), clock.instant());
        sleeper.sleepUntil(clock, Instant.ofEpochSecond(bucket.start()));
        phases.woke(bucket, clock.instant());
        int expired = 0;
        int superseded = 0;
        List<ItemAtTtl> pending = new ArrayList<>(items);
        List<Throwable> failures = new ArrayList<>();
        for (int round = 0; round < DELETE_ATTEMPTS && !pending.isEmpty(); round++) {
            if (round > 0) {
                pause(round);
            }
            List<CompletableFuture<ItemDeleter.Result>> deletes = new ArrayList<>(pending.size());
            for (ItemAtTtl item : pending) {
                deletes.add(CompletableFuture.supplyAsync(
                        () -> deleter.deleteIfUnchanged(bucket.table(), item.key(), ttlAttribute, item.ttl()), pool));
            }
            List<ItemAtTtl> failed = new ArrayList<>();
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
            throw new BucketFailedException(bucket, pending.size() + " of " + items.size() + " deletes failed "
                    + DELETE_ATTEMPTS + " times", failures);
        }
        return new Result(BucketWorkflow.OUTCOME_EXPIRED, items.size(), expired, superseded, 0);
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

    private Result cascade(List<Bucket> children, String ttlAttribute) {
        List<CompletableFuture<Void>> starts = new ArrayList<>(children.size());
        for (Bucket child : children) {
            // The child's live generation: running already (the handler or a duplicate cascade started
            // it), finished, or started now; one that ended unfinished is replaced, never trusted.
            starts.add(CompletableFuture.runAsync(() -> generations.ensure(child, ttlAttribute, ThrottleBackoff.noRetries()),
                    pool));
        }
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
        return new Result(BucketWorkflow.OUTCOME_CASCADED, 0, 0, 0, children.size());
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
