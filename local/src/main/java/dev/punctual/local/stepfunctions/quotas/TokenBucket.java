package dev.punctual.local.stepfunctions.quotas;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The token bucket AWS describes for its throttles: it starts full at {@code capacity} tokens, each
 * request takes one, and tokens come back at {@code ratePerSecond} up to the capacity. Time is read
 * from an injected {@link Clock}, so a test moves a manual clock and gets exact counts.
 *
 * <p>Two ways to ask: {@link #tryAcquire()} refuses when the bucket is empty (API throttling: the call
 * fails), {@link #reserve()} takes a token from the future and says when it is due (state-transition
 * throttling: the transition waits its turn). Reservations queue in the order they were made.
 */
public final class TokenBucket {

    private static final double NANOS_PER_SECOND = 1e9;

    private final double capacity;
    private final double ratePerSecond;
    private final Clock clock;
    private double tokens;
    private long refilledAtNanos;

    public TokenBucket(double capacity, double ratePerSecond, Clock clock) {
        if (!(capacity >= 1) || !(ratePerSecond > 0)) {
            throw new IllegalArgumentException("a token bucket needs a capacity of at least 1 and a positive rate, got "
                    + capacity + " and " + ratePerSecond);
        }
        this.capacity = capacity;
        this.ratePerSecond = ratePerSecond;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.tokens = capacity;
        this.refilledAtNanos = nanos(clock.instant());
    }

    /** Takes a token if there is one now; {@code false} means the request is throttled. */
    public synchronized boolean tryAcquire() {
        refill();
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    /**
     * Takes a token, now or from the future, and returns how long until it is available: zero when the
     * bucket had one, otherwise the time the refill needs to cover every earlier reservation and this one.
     */
    public synchronized Duration reserve() {
        refill();
        tokens -= 1;
        if (tokens >= 0) {
            return Duration.ZERO;
        }
        return Duration.ofNanos((long) Math.ceil(-tokens / ratePerSecond * NANOS_PER_SECOND));
    }

    /** Tokens in the bucket now; negative while reservations wait for the refill. */
    public synchronized double available() {
        refill();
        return tokens;
    }

    private void refill() {
        long now = nanos(clock.instant());
        if (now > refilledAtNanos) {
            tokens = Math.min(capacity, tokens + (now - refilledAtNanos) / NANOS_PER_SECOND * ratePerSecond);
            refilledAtNanos = now;
        }
    }

    private static long nanos(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }
}
