package dev.punctual.expiry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** A clock that only the pauses it is given move: backoff in tests without sleeping. */
public final class SteppingClock extends Clock implements Sleeper {

    private Instant now;
    private final List<Duration> pauses = new ArrayList<>();

    public SteppingClock(Instant start) {
        this.now = start;
    }

    @Override
    public synchronized Instant instant() {
        return now;
    }

    @Override
    public synchronized void sleep(Duration duration) {
        pauses.add(duration);
        now = now.plus(duration);
    }

    public synchronized List<Duration> pauses() {
        return List.copyOf(pauses);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("UTC only");
    }
}
