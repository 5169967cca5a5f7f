package dev.punctual.backfill;

import dev.punctual.expiry.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand; as a {@link Sleeper} it moves itself instead of sleeping. */
final class MutableClock extends Clock implements Sleeper {

    private Instant now;
    private Duration slept = Duration.ZERO;

    MutableClock(Instant start) {
        this.now = start;
    }

    @Override
    public synchronized Instant instant() {
        return now;
    }

    @Override
    public synchronized void sleep(Duration duration) {
        now = now.plus(duration);
        slept = slept.plus(duration);
    }

    synchronized Duration slept() {
        return slept;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
