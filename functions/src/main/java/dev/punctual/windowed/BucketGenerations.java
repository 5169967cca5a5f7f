package dev.punctual.windowed;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ThrottleBackoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Finds, or starts, the execution that will work a bucket: its <em>live generation</em>. A bucket's
 * execution that failed, timed out or was stopped before it finished cannot be trusted to read the
 * bucket, so it is replaced by a successor of the same bucket, named {@code <name>-g<n>}
 * ({@link BucketInput#executionName()}), which reads the same index entries under the same seal.
 * Every party that needs a bucket (the stream handler, a coarser bucket's cascade, the healer told
 * of an unfinished execution, a backfill) asks here, so none of them trusts a dead one.
 *
 * <p><b>Why a successor is safe.</b> The seal belongs to the bucket, not to an execution: a
 * successor seals (again; sealing twice changes nothing), reads every entry, and deletes each item
 * only if its TTL is unchanged, after the bucket's second. Whatever its predecessor deleted, the
 * successor finds gone; whatever a handler placed elsewhere because it saw the seal is deleted once,
 * by whichever delete comes first.
 *
 * <p><b>Why it is idempotent.</b> A successor's name is derived from the bucket and the generation
 * it replaces, so two parties that notice the same dead execution start the same name: the second
 * finds the first's execution running (or, if their inputs differ, finds the name taken and
 * describes it as running).
 *
 * <p><b>Why it is bounded.</b> Generation {@code n} waits {@link #delayBefore(int)} before it works
 * (none for the first successor, so a stopped or crashed bucket is late only by the time it took to
 * notice; then from one minute, doubling, to an hour), and there are at most
 * {@link #MAX_GENERATIONS}. A bucket whose work fails every time is tried for about four hours and
 * then <em>abandoned</em>: no party starts it again, parties place new items as if it were sealed,
 * and the items it held are left to native TTL (each failed generation shows in the failed-executions
 * alarm).
 */
public final class BucketGenerations {

    /** Successor generations at most, after the first execution: generation numbers run 0 to this. */
    public static final int MAX_GENERATIONS = 10;
    /** The back-off before the second successor; it doubles with each one after. */
    static final Duration FIRST_BACKOFF = Duration.ofMinutes(1);
    /** The longest back-off between generations. */
    static final Duration MAX_BACKOFF = Duration.ofHours(1);

    /** What a party can count on for a bucket. */
    public enum State {
        /** An execution is running (found, or started now) that will seal and read the bucket. */
        RUNNING,
        /** The latest generation succeeded: it sealed and read the bucket, and none will read it again. */
        FINISHED,
        /** Every generation ended unfinished: none will read the bucket again. */
        ABANDONED
    }

    /**
     * The bucket's live generation, or its last one: its state, its execution's name, when its Wait
     * ends ({@link Instant#MAX} when its input could not be read: trusted with nothing that needs it) and
     * the first second its runner works ({@link BucketInput#from}; the bucket's end when its input could
     * not be read).
     */
    public record Live(State state, String execution, int generation, Instant wakeAt, long from) {

        Live(State state, BucketInput input) {
            this(state, input.executionName(), input.generation(), input.wakeAt(), input.from());
        }

        /** Whether an execution will still seal and read the bucket. */
        public boolean willRead() {
            return state == State.RUNNING;
        }
    }

    private final Executions buckets;
    private final Clock clock;

    /** @param buckets the {@code expire-bucket} state machine's executions */
    public BucketGenerations(Executions buckets, Clock clock) {
        this.buckets = Objects.requireNonNull(buckets, "buckets");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** How long generation {@code generation} waits before it works: 0 for the first two, then 1 min doubling to 1 h. */
    public static Duration delayBefore(int generation) {
        if (generation <= 1) {
            return Duration.ZERO;
        }
        int doublings = Math.min(generation - 2, 16);
        return Collections.min(List.of(FIRST_BACKOFF.multipliedBy(1L << doublings), MAX_BACKOFF));
    }

    /** The bucket's live generation, from its first execution on; starts what is missing. */
    public Live ensure(Bucket bucket, String ttlAttribute, ThrottleBackoff.Batch retries) {
        return ensure(BucketInput.first(bucket, ttlAttribute, clock.instant()), retries);
    }

    /**
     * The live generation of {@code first}'s bucket, starting {@code first} if the bucket has no execution
     * yet (a minute bucket {@link BucketInput#planned planned} for its first due second).
     */
    public Live ensure(BucketInput first, ThrottleBackoff.Batch retries) {
        return walk(first, retries);
    }

    /**
     * The live generation of the bucket whose execution {@code unfinished} ended without finishing:
     * starts its successor, unless another party already has (or the last generation was reached).
     */
    public Live replace(BucketInput unfinished, ThrottleBackoff.Batch retries) {
        if (unfinished.generation() >= MAX_GENERATIONS) {
            return new Live(State.ABANDONED, unfinished);
        }
        return walk(next(unfinished), retries);
    }

    /**
     * Starts {@code input}'s execution, or describes the one holding its name, and moves on along the
     * bucket's chain (a one-year successor, a next generation) until it finds one that is running or
     * succeeded.
     */
    private Live walk(BucketInput first, ThrottleBackoff.Batch retries) {
        BucketInput input = first;
        while (true) {
            BucketInput attempt = input;
            if (retries.call(() -> buckets.start(attempt.executionName(), attempt.toJson())) == Executions.StartResult.STARTED) {
                return new Live(State.RUNNING, attempt);
            }
            Executions.Holder holder = retries.call(() -> buckets.describe(attempt.executionName()));
            switch (holder.status()) {
                case RUNNING -> {
                    // Running with another input: a bucket beyond a horizon, a minute bucket another party
                    // planned for another second, or a successor another party started.
                    return new Live(State.RUNNING, attempt.executionName(), attempt.generation(),
                            BucketInput.wakeAtIn(holder.input()), BucketInput.fromIn(holder.input(), attempt.bucket()));
                }
                case CLOSED -> {
                    return new Live(State.FINISHED, attempt);
                }
                // What follows an execution that ended works the seconds it held (its input's), not those
                // this party planned for: a minute planned for a later second would skip the ones between.
                case CONTINUED -> input = attempt.withSecondsOf(holder.input()).successor(clock.instant());
                case FAILED -> {
                    if (attempt.generation() >= MAX_GENERATIONS) {
                        return new Live(State.ABANDONED, attempt);
                    }
                    input = next(attempt.withSecondsOf(holder.input()));
                }
                case MISSING -> throw new IllegalStateException("StartExecution said " + attempt.executionName()
                        + " exists but DescribeExecution does not find it; the record is reported for retry");
                default -> throw new IllegalStateException("unknown status " + holder.status());
            }
        }
    }

    private BucketInput next(BucketInput unfinished) {
        return unfinished.nextGeneration(clock.instant(), delayBefore(unfinished.generation() + 1));
    }
}
