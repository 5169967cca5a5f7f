package dev.punctual.local.time;

import dev.punctual.expiry.Sleeper;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * Blocking waits on a {@link Timer}: a thread sleeping here wakes when the timer reaches the instant,
 * so on the runtime's {@link ClockTimer} it wakes when the clock does, and on a {@link ManualTimer}
 * when a test moves time. The stream reader's pauses, the trial's polls, and the functions' waits and
 * backoff in the local runtime all sleep here, on the engine's timer, instead of in
 * {@code Thread.sleep} or {@code Object.wait}.
 */
public final class TimerSleeper implements Sleeper {

    private final Timer timer;
    private final Set<CountDownLatch> sleeping = ConcurrentHashMap.newKeySet();
    private volatile boolean aborted;

    public TimerSleeper(Timer timer) {
        this.timer = timer;
    }

    /** Sleeps until the timer's clock has moved on by {@code duration}; returns at once once aborted. */
    @Override
    public void sleep(Duration duration) throws InterruptedException {
        if (duration.isNegative() || duration.isZero() || aborted) {
            return;
        }
        CountDownLatch due = new CountDownLatch(1);
        sleeping.add(due);
        Timer.Cancellable wake = timer.schedule(timer.clock().instant().plus(duration), due::countDown);
        try {
            if (!aborted) {
                due.await();
            }
        } finally {
            wake.cancel();
            sleeping.remove(due);
        }
    }

    /** Ends every sleep in progress and makes later ones return at once: for a party that is stopping. */
    public void abort() {
        aborted = true;
        sleeping.forEach(CountDownLatch::countDown);
    }
}
