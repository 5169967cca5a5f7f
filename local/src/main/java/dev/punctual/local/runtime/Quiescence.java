package dev.punctual.local.runtime;

import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.ManualTimer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Whether a runtime on a {@link ManualTimer} has done everything it will do at the timer's instant:
 * nothing due on the timer, no work queued or running on its threads, and every watched stream read
 * and handled up to its end. Time stays still while this is checked, so a delete made now is made at
 * this instant, and the expiry event its REMOVE gives is published at it.
 *
 * <p>It works in rounds. A round runs what is due, waits for the threads to finish, then asks every
 * stream reader for a pass and waits until each has made one that found nothing. A round is the last
 * when nothing was handed to a thread and no stream record read while it ran: whatever the stream
 * handler started (an execution launched, a status event put on the bus) shows as work handed over,
 * and sends the check round again.
 */
final class Quiescence {

    /** Between looks at the counters: short, as a settled second should cost milliseconds. */
    private static final long LOOK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final ManualTimer timer;
    private final InFlight work;
    private final StreamPoller poller;

    Quiescence(ManualTimer timer, InFlight work, StreamPoller poller) {
        this.timer = timer;
        this.work = work;
        this.poller = poller;
    }

    /** Returns once the runtime is settled at the timer's instant; fails after {@code timeout} of wall time. */
    void await(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long handedOver = work.handedOver();
            long read = poller.recordsRead();
            timer.runDue();
            waitFor(() -> work.count() == 0, deadline, () -> work.count() + " tasks still queued or running");
            // A table created since the last periodic look is watched before its stream is asked about.
            poller.discoverTables();
            Map<String, Long> looks = poller.lookNow();
            waitFor(() -> poller.quietSince(looks), deadline, () -> "stream readers still reading: " + poller.tableMetrics());
            if (work.count() == 0 && work.handedOver() == handedOver && poller.recordsRead() == read
                    && !timer.anythingDue()) {
                return;
            }
        }
    }

    private void waitFor(BooleanSupplier condition, long deadline, Supplier<String> state) {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("The runtime did not settle at " + timer.clock().instant()
                        + ": " + state.get() + ". A failing or throttled call retried on the timer waits for time"
                        + " to move; look at the runtime's log");
            }
            LockSupport.parkNanos(LOOK_NANOS);
        }
    }
}
