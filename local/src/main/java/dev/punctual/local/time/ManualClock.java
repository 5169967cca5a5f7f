package dev.punctual.local.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that only moves when told to, for tests that wait months in milliseconds. */
public final class ManualClock extends Clock {

    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("A manual clock is always UTC");
    }

    @Override
    public Instant instant() {
        return now;
    }

    /** Sets the time; it may not go backwards, as no real clock the runtime uses does. */
    public synchronized void set(Instant instant) {
        if (instant.isBefore(now)) {
            throw new IllegalArgumentException("Manual clock cannot go back from " + now + " to " + instant);
        }
        now = instant;
    }

    public void advance(Duration duration) {
        set(now.plus(duration));
    }
}
