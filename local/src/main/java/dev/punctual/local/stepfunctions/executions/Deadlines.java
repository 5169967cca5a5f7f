package dev.punctual.local.stepfunctions.executions;

import dev.punctual.local.time.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * The one-year limit of Standard executions. Every execution has the same limit, so executions
 * queue in start order and one timer entry, for the oldest, serves them all: at its instant each
 * execution whose year is over times out with {@code States.Timeout}.
 */
final class Deadlines {

    /** A Standard execution runs at most one year, then times out with {@code States.Timeout}. */
    static final Duration MAX_EXECUTION_DURATION = Duration.ofDays(365);

    private final Timer timer;
    private final IntSupplier openExecutions;
    private final ArrayDeque<Execution> byStart = new ArrayDeque<>();
    private Timer.Cancellable sweep;

    /** @param openExecutions how many executions are open, to bound the closed ones left in the queue */
    Deadlines(Timer timer, IntSupplier openExecutions) {
        this.timer = timer;
        this.openExecutions = openExecutions;
    }

    /** Times {@code e} out a year after its start unless it closes first; call in start order. */
    void track(Execution e) {
        synchronized (byStart) {
            byStart.addLast(e);
            if (byStart.size() > 2 * openExecutions.getAsInt() + 4096) {
                byStart.removeIf(x -> x.status.isClosed());
            }
            if (sweep == null) {
                scheduleSweep();
            }
        }
    }

    private void scheduleSweep() {
        Execution head = byStart.peekFirst();
        if (head != null) {
            sweep = timer.schedule(Instant.ofEpochMilli(head.startMillis).plus(MAX_EXECUTION_DURATION),
                    this::sweepDue);
        }
    }

    private void sweepDue() {
        long now = timer.clock().millis();
        long limit = MAX_EXECUTION_DURATION.toMillis();
        List<Execution> due = new ArrayList<>();
        synchronized (byStart) {
            sweep = null;
            while (!byStart.isEmpty() && byStart.peekFirst().startMillis + limit <= now) {
                due.add(byStart.pollFirst());
            }
            scheduleSweep();
        }
        due.forEach(Execution::timeOut);
    }

    void close() {
        synchronized (byStart) {
            if (sweep != null) {
                sweep.cancel();
            }
        }
    }
}
