package dev.punctual.local.measure;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.time.TimerSleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

/**
 * How a trial waits for the runtime: it looks at what it waits for, and if that is not done yet, sleeps
 * a tick on the runtime's timer (which drives what it waits for) and looks again, until done or a
 * deadline on the trial's own clock.
 */
final class TrialPolls {

    /** How often a trial looks. */
    static final Duration TICK = Duration.ofMillis(20);

    private final Clock clock;
    private final TimerSleeper ticks;

    /** Polls that sleep on {@code runtime}'s timer and read the time, for deadlines, from {@code clock}. */
    TrialPolls(LocalRuntime runtime, Clock clock) {
        this.clock = clock;
        this.ticks = new TimerSleeper(runtime.timer());
    }

    /** The trial's clock. */
    Clock clock() {
        return clock;
    }

    /**
     * Polls {@code done} with the time now, every {@code every}, until it returns true or the time is
     * after {@code deadline}; returns whether it was done.
     */
    boolean until(Instant deadline, Duration every, Predicate<Instant> done) throws InterruptedException {
        while (true) {
            Instant now = clock.instant();
            if (done.test(now)) {
                return true;
            }
            if (now.isAfter(deadline)) {
                return false;
            }
            ticks.sleep(every);
        }
    }
}
