package dev.punctual.tests.moto;

import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.ManualTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.concurrent.locks.LockSupport;

/**
 * Time for an engine that nothing else drives: whenever the engine has no work queued or running on
 * its threads, none was handed over while it looked, and no call into it is under way
 * ({@link #during}), the timer moves straight to the next instant work is owed at (a retry's backoff,
 * a Wait's end) and runs it there. So a retry that AWS backs off for a minute costs the test no wall
 * time, yet every timer fires in its own order, and a timeout (a Task's, an execution's year) fires
 * only when nothing the engine is doing could still beat it. A skip never goes beyond {@link #HORIZON}.
 *
 * <p>A call from outside (StartExecution) is the one stretch the engine's thread counter cannot see:
 * the API thread schedules the new execution's deadline before it hands the run to a counted thread.
 * Wrapping such calls in {@link #during} keeps time still across it.
 */
final class SkipWhenIdle implements AutoCloseable {

    /**
     * The furthest one skip goes. No retry here backs off longer (30 s at most), and the far wake-ups
     * that only guard (an execution's year, a closed execution's hour of retention, a Task's timeout of
     * minutes) are never reached: they would end what the test still reads.
     */
    static final Duration HORIZON = Duration.ofMinutes(1);
    /** How long the engine must stay idle before time moves: one look, then this, then another. */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final ManualTimer timer;
    private final InFlight work;
    private final Thread thread;
    private final AtomicInteger calling = new AtomicInteger();
    private final AtomicLong callsBegun = new AtomicLong();
    private volatile boolean closed;

    private SkipWhenIdle(ManualTimer timer, InFlight work) {
        this.timer = timer;
        this.work = work;
        this.thread = new Thread(this::run, "skip-when-idle");
        thread.setDaemon(true);
    }

    /** Starts moving {@code timer} whenever the threads counted by {@code work} are idle. */
    static SkipWhenIdle start(ManualTimer timer, InFlight work) {
        SkipWhenIdle skipping = new SkipWhenIdle(timer, work);
        skipping.thread.start();
        return skipping;
    }

    /** Makes {@code call} into the engine with time held still until it returns. */
    <T> T during(Supplier<T> call) {
        callsBegun.incrementAndGet();
        calling.incrementAndGet();
        try {
            return call.get();
        } finally {
            calling.decrementAndGet();
        }
    }

    private void run() {
        while (!closed) {
            timer.runDue();
            long handedOver = work.handedOver();
            long begun = callsBegun.get();
            LockSupport.parkNanos(QUIET_NANOS);
            Instant next = timer.nextWorkWakeUp();
            if (next != null && !next.isAfter(timer.clock().instant().plus(HORIZON))
                    && stayedIdle(handedOver, begun)) {
                timer.skipToNextWork(next);
            }
        }
    }

    /** Nothing queued or running, nothing handed over and no call begun since the counts were read. */
    private boolean stayedIdle(long handedOver, long callsBegunBefore) {
        return work.count() == 0 && work.handedOver() == handedOver && calling.get() == 0
                && callsBegun.get() == callsBegunBefore;
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(TimeUnit.SECONDS.toMillis(5));
    }
}
