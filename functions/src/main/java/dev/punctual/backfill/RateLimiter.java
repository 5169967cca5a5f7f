package dev.punctual.backfill;

import dev.punctual.expiry.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket: up to {@code rate} permits a second on average, bursts of at most one second's
 * worth. Backfill paces one segment's StartExecution calls with it, at the segment's share of the run's
 * rate.
 */
public final class RateLimiter {

    private final double rate;
    private final double capacity;
    private final Clock clock;
    private final Sleeper sleeper;
    private double tokens;
    private Instant refilledAt;

    /** @param rate permits per second; {@code 0} for no limit */
    public RateLimiter(double rate, Clock clock, Sleeper sleeper) {
        if (rate < 0 || Double.isNaN(rate) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate must be a finite number of items per second, 0 for no limit; got " + rate);
        }
        this.rate = rate;
        this.capacity = Math.max(1.0, rate);
        this.clock = clock;
        this.sleeper = sleeper;
        this.tokens = capacity;
        this.refilledAt = clock.instant();
    }

    /** Takes one permit, waiting for it if the bucket is empty. */
    public synchronized void acquire() throws InterruptedException {
        if (rate == 0) {
            return;
        }
        while (true) {
            Instant now = clock.instant();
            double elapsed = Duration.between(refilledAt, now).toNanos() / 1e9;
            tokens = Math.min(capacity, tokens + elapsed * rate);
            refilledAt = now;
            if (tokens >= 1.0) {
                tokens -= 1.0;
                return;
            }
            sleeper.sleep(Duration.ofNanos((long) Math.ceil((1.0 - tokens) / rate * 1e9)));
        }
    }
}
