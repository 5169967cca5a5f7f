package dev.punctual.windowed;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Sleeper;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Clock;
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

/**
 * The bucket function's core: what one {@code expire-bucket} execution does once its Wait ends.
 * <ul>
 *   <li>A one-second bucket arrives {@link BucketWorkflow#WARM_LEAD} early, so the function is warm;
 *       it seals the bucket and reads its entries at once, waits for its second, and then deletes each
 *       item conditionally, concurrently. Sealing and reading ahead leaves only the deletes to the
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

    private final ScheduleIndex index;
    private final ItemDeleter deleter;
    private final Executions buckets;
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
        List<CompletableFuture<ItemDeleter.Result>> deletes = new ArrayList<>(items.size());
        for (ItemAtTtl item : items) {
            deletes.add(CompletableFuture.supplyAsync(
                    () -> deleter.deleteIfUnchanged(bucket.table(), item.key(), ttlAttribute, item.ttl()), pool));
        }
        int expired = 0;
        int superseded = 0;
        List<Throwable> failures = new ArrayList<>();
        for (CompletableFuture<ItemDeleter.Result> delete : deletes) {
            try {
                if (delete.join() == ItemDeleter.Result.DELETED) {
                    expired++;
                } else {
                    superseded++;
                }
            } catch (CompletionException e) {
                failures.add(e.getCause());
            }
        }
        if (!failures.isEmpty()) {
            throw new BucketFailedException(bucket, failures.size() + " of " + items.size() + " deletes failed", failures);
        }
        return new Result(BucketWorkflow.OUTCOME_EXPIRED, items.size(), expired, superseded, 0);
    }

    private Result cascade(List<Bucket> children, String ttlAttribute) {
        Instant now = clock.instant();
        List<CompletableFuture<Executions.StartResult>> starts = new ArrayList<>(children.size());
        for (Bucket child : children) {
            BucketInput input = BucketInput.first(child, ttlAttribute, now);
            // A name already taken is fine: the child runs, or ran after sealing, or a duplicate
            // cascade got there first.
            starts.add(CompletableFuture.supplyAsync(() -> buckets.start(input.executionName(), input.toJson()), pool));
        }
        List<Throwable> failures = new ArrayList<>();
        for (CompletableFuture<Executions.StartResult> start : starts) {
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
