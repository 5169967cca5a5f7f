package dev.punctual.local.time;

import java.time.Clock;
import java.time.Instant;

/**
 * Runs actions at instants of an injected {@link Clock}. One timer holds every pending wake-up of the
 * runtime (Wait states, retry back-off, task time-outs) without a thread per wake-up, and a test can
 * drive it with a manual clock instead of sleeping.
 */
public interface Timer {

    /** The clock this timer's instants are read from. */
    Clock clock();

    /**
     * Runs {@code action} once, at or after {@code at}, never before. An instant already past runs as
     * soon as possible. Actions must be short; anything slow belongs on an executor of its own.
     */
    Cancellable schedule(Instant at, Runnable action);

    /**
     * {@link #schedule} for a wake-up that only paces polling (a stream reader's idle pause, a periodic
     * look for new tables): nothing is owed at that instant, so a {@link ManualTimer} that skips time may
     * run it once at the end of a skip instead of at each instant it fell due on the way. On a timer that
     * follows a real clock this is {@link #schedule}.
     */
    default Cancellable schedulePoll(Instant at, Runnable action) {
        return schedule(at, action);
    }

    /** A scheduled action that may still be withdrawn. */
    interface Cancellable {
        /** Withdraws the action; {@code true} if it had not started and now never will. */
        boolean cancel();
    }
}
