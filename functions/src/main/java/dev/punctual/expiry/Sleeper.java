package dev.punctual.expiry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** Waits; injected so that tests move a clock instead of sleeping. */
@FunctionalInterface
public interface Sleeper {

    /** The real thing. */
    Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);

    void sleep(Duration duration) throws InterruptedException;

    /**
     * Sleeps until {@code clock} reads {@code instant} or later: however early a sleep ends, this
     * never returns before the instant.
     *
     * @throws IllegalStateException when interrupted (the interrupt flag is set again)
     */
    default void sleepUntil(Clock clock, Instant instant) {
        for (Instant now = clock.instant(); now.isBefore(instant); now = clock.instant()) {
            try {
                sleep(Duration.between(now, instant));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + instant, e);
            }
        }
    }
}
