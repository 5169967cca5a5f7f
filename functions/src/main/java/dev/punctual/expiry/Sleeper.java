package dev.punctual.expiry;

import java.time.Duration;

/** Waits; injected so that tests move a clock instead of sleeping. */
@FunctionalInterface
public interface Sleeper {

    /** The real thing. */
    Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);

    void sleep(Duration duration) throws InterruptedException;
}
