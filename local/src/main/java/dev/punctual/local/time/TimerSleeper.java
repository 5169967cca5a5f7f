package dev.punctual.local.time;

import dev.punctual.expiry.Sleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;

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
        sleep(duration, false, () -> false);
    }

    /**
     * A pause that only paces polling ({@link Timer#schedulePoll}): as {@link #sleep}, but it also ends
     * when {@link #wake} is called, or at once when {@code wakeNow} already holds once the sleeper is
     * listening for {@link #wake} (so a wake between the caller's last look and this call is not lost).
     */
    public void pollPause(Duration duration, BooleanSupplier wakeNow) throws InterruptedException {
        sleep(duration, true, wakeNow);
    }

    private void sleep(Duration duration, boolean poll, BooleanSupplier wakeNow) throws InterruptedException {
        if (duration.isNegative() || duration.isZero() || aborted) {
            return;
        }
        CountDownLatch due = new CountDownLatch(1);
        sleeping.add(due);
        Instant at = timer.clock().instant().plus(duration);
        Timer.Cancellable wake = poll ? timer.schedulePoll(at, due::countDown) : timer.schedule(at, due::countDown);
        try {
            if (!aborted && !wakeNow.getAsBoolean()) {
                due.await();
            }
        } finally {
            wake.cancel();
            sleeping.remove(due);
        }
    }

    /** Ends every sleep in progress now; later ones sleep as usual. */
    public void wake() {
        sleeping.forEach(CountDownLatch::countDown);
    }

    /** Ends every sleep in progress and makes later ones return at once: for a party that is stopping. */
    public void abort() {
        aborted = true;
        sleeping.forEach(CountDownLatch::countDown);
    }
}
