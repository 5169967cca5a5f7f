package dev.punctual.junit;

import dev.punctual.local.runtime.SkippedTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The time of a test's Punctual runtime. With time you control (the default), {@link #advance} and
 * {@link #advanceTo} move it: every expiry due on the way happens at its own second, in order, and the
 * call returns once the runtime has done all it will do up to the new instant (deletes made, stream
 * records handled, {@code ItemExpired} events published). With real time they wait for the wall clock.
 * Hand {@link #clock()} to the code under test so its TTLs are computed on the same time.
 */
public final class PunctualTime {

    private final SkippedTime skipped;

    private PunctualTime(SkippedTime skipped) {
        this.skipped = skipped;
    }

    static PunctualTime controlled(SkippedTime skipped) {
        return new PunctualTime(skipped);
    }

    static PunctualTime real() {
        return new PunctualTime(null);
    }

    /** Whether the test moves this time ({@code true}) or it is the wall clock's. */
    public boolean isControlled() {
        return skipped != null;
    }

    /** The runtime's clock, in UTC. */
    public Clock clock() {
        return skipped != null ? skipped.clock() : Clock.systemUTC();
    }

    /** The runtime's instant now. */
    public Instant now() {
        return clock().instant();
    }

    /** {@link #advanceTo} the instant {@code duration} from now. */
    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("Time only goes forward; got " + duration);
        }
        advanceTo(now().plus(duration));
    }

    /**
     * Moves time to {@code instant}, running every expiry due on the way at its own second; returns once
     * the runtime has done all it will do up to that instant. On real time, sleeps until the wall clock
     * reaches it; what the runtime does then is not waited for.
     */
    public void advanceTo(Instant instant) {
        if (skipped != null) {
            skipped.advanceTo(instant);
            return;
        }
        // Sleeps in whole milliseconds, rounded up, until the wall clock has reached the instant: a sleep of the
        // remainder's whole milliseconds alone can return a fraction of one before it.
        Duration remaining;
        while ((remaining = Duration.between(Instant.now(), instant)).compareTo(Duration.ZERO) > 0) {
            try {
                Thread.sleep(Math.max(1, remaining.plusNanos(999_999).toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for real time to reach " + instant, e);
            }
        }
    }

    /**
     * Waits, without moving time, until the runtime has done all it will do at the current instant:
     * for instance until what the test just wrote has been read from the stream and scheduled.
     */
    public void settle() {
        if (skipped != null) {
            skipped.settle();
        }
    }
}
