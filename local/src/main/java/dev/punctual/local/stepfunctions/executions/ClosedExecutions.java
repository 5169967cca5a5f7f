package dev.punctual.local.stepfunctions.executions;

import dev.punctual.local.retention.RetainedLog;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.Timer;
import java.time.Instant;

/**
 * The closed Standard executions the engine still serves, oldest closed first, within a count and
 * an age: AWS keeps them 90 days on its servers, but the local runtime keeps them in the developer's
 * heap (and in each snapshot of the journal), so past the bounds an execution is forgotten and answers
 * {@code ExecutionDoesNotExist}, as one past AWS's retention does. Like {@link Deadlines}, one timer
 * entry at the oldest's expiry serves them all, and none is pending while nothing is kept.
 */
final class ClosedExecutions {

    private final Timer timer;
    private final RetainedLog<Execution> closed;
    private Timer.Cancellable sweep;

    ClosedExecutions(Timer timer, Retention retention) {
        this.timer = timer;
        this.closed = new RetainedLog<>(retention, e -> e.stateMachine.forget(e));
    }

    /** Keeps {@code e}, closed at its stop time, forgetting the oldest beyond the bounds. */
    void retain(Execution e) {
        synchronized (closed) {
            // By stop time, not by when it is retained: a restart reads an execution filed by a compaction
            // before one that closed earlier but was still running when that compaction's snapshot saw it.
            closed.addInOrder(e, Instant.ofEpochMilli(e.stopMillis));
            // Replayed executions closed long ago are forgotten at once, not on the next sweep.
            closed.trim(timer.clock().instant());
            if (sweep == null) {
                scheduleSweep();
            }
        }
    }

    private void scheduleSweep() {
        Execution oldest = closed.oldest();
        if (oldest != null) {
            sweep = timer.schedule(Instant.ofEpochMilli(oldest.stopMillis).plus(closed.retention().age()),
                    this::sweepDue);
        }
    }

    private void sweepDue() {
        synchronized (closed) {
            sweep = null;
            closed.trim(timer.clock().instant());
            scheduleSweep();
        }
    }

    /** Closed executions kept now. */
    int size() {
        synchronized (closed) {
            return closed.size();
        }
    }

    /** Closed executions forgotten since the engine started. */
    long forgotten() {
        synchronized (closed) {
            return closed.forgotten();
        }
    }

    void close() {
        synchronized (closed) {
            if (sweep != null) {
                sweep.cancel();
            }
        }
    }
}
