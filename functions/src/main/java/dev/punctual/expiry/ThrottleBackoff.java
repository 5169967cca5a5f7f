package dev.punctual.expiry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Retries throttled Step Functions calls with exponential backoff and full jitter (each pause drawn
 * uniformly from zero to the capped exponential step, as the AWS Architecture Blog's "Exponential
 * Backoff And Jitter" recommends so that many throttled callers spread out), until a deadline: the
 * invocation's remaining time less a safety margin. A call still throttled at the deadline fails with
 * its {@link ThrottledException}, and the record is reported for the event source mapping to retry.
 */
public final class ThrottleBackoff {

    /** The first pause's upper bound. */
    public static final Duration BASE_DELAY = Duration.ofMillis(100);
    /** No single pause is drawn from a range wider than this. */
    public static final Duration MAX_DELAY = Duration.ofSeconds(5);

    private final Clock clock;
    private final Sleeper sleeper;
    private final RandomGenerator random;

    public ThrottleBackoff(Clock clock, Sleeper sleeper, RandomGenerator random) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** Retries for one batch, for at most {@code budget} from now on this backoff's clock. */
    public Batch within(Duration budget) {
        return new Batch(clock.instant().plus(budget));
    }

    /** A batch that never retries: throttling fails the call at once (backfill and tests). */
    public static Batch noRetries() {
        return new ThrottleBackoff(Clock.systemUTC(), d -> { }, java.util.concurrent.ThreadLocalRandom.current())
                .within(Duration.ZERO);
    }

    /** The retries of one invocation's batch: shared by its concurrent calls, counting what throttling did. */
    public final class Batch {
        private final Instant deadline;
        private final AtomicInteger throttledCalls = new AtomicInteger();
        private final AtomicInteger gaveUp = new AtomicInteger();

        private Batch(Instant deadline) {
            this.deadline = deadline;
        }

        /**
         * Makes {@code call}, again after a jittered pause each time it is throttled, while the deadline
         * allows a pause.
         *
         * @throws ThrottledException when still throttled at the deadline
         */
        public <T> T call(Supplier<T> call) {
            for (int attempt = 0; ; attempt++) {
                try {
                    return call.get();
                } catch (ThrottledException throttled) {
                    throttledCalls.incrementAndGet();
                    Duration left = Duration.between(clock.instant(), deadline);
                    if (left.isNegative() || left.isZero()) {
                        gaveUp.incrementAndGet();
                        throw throttled;
                    }
                    Duration drawn = jittered(attempt);
                    try {
                        sleeper.sleep(drawn.compareTo(left) < 0 ? drawn : left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        gaveUp.incrementAndGet();
                        throw throttled;
                    }
                }
            }
        }

        /** Full jitter: uniform in [0, min(MAX_DELAY, BASE_DELAY × 2^attempt)]. */
        private Duration jittered(int attempt) {
            long ceiling = Math.min(MAX_DELAY.toMillis(), BASE_DELAY.toMillis() << Math.min(attempt, 20));
            return Duration.ofMillis(random.nextLong(ceiling + 1));
        }

        /** Calls throttled so far (each retry that was throttled again counts once more). */
        public int throttledCalls() {
            return throttledCalls.get();
        }

        /** Calls given up on because the deadline came while they were still throttled. */
        public int gaveUp() {
            return gaveUp.get();
        }
    }
}
