package dev.punctual.local.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The runtime's timer: every pending wake-up sits in one heap watched by one daemon thread, which
 * parks until the earliest due instant (woken early when an earlier entry arrives) and hands due
 * actions to an executor, so a slow action never delays the next wake-up. An action runs only once
 * {@code clock.instant()} has reached its instant, so it never fires early even if the park returns
 * before the wall clock agrees.
 */
public final class ClockTimer implements Timer, AutoCloseable {

    private final Clock clock;
    private final Executor actions;
    private final WakeUpQueue queue = new WakeUpQueue();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread thread;
    /** One shared back-reference for every entry, so an entry costs no extra object. */
    private final WakeUpQueue.Owner owner = this::cancel;
    private volatile boolean closed;

    /**
     * @param clock the clock instants are read from (normally {@link Clock#systemUTC()})
     * @param actions runs due actions; must not block the caller for long
     * @param threadName name of the single waiting thread
     */
    public ClockTimer(Clock clock, Executor actions, String threadName) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.actions = Objects.requireNonNull(actions, "actions");
        this.thread = new Thread(this::loop, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public Cancellable schedule(Instant at, Runnable action) {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(action, "action");
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("Timer is closed; no more wake-ups can be scheduled");
            }
            WakeUpQueue.Entry entry = queue.add(at, action, owner);
            if (queue.peek() == entry) {
                changed.signal();
            }
            return entry;
        } finally {
            lock.unlock();
        }
    }

    /** Number of wake-ups not yet handed to the executor. */
    public int pending() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    private boolean cancel(WakeUpQueue.Entry entry) {
        lock.lock();
        try {
            boolean removed = queue.remove(entry);
            if (removed) {
                entry.action = null;
            }
            return removed;
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        lock.lock();
        try {
            while (!closed) {
                WakeUpQueue.Entry first = queue.peek();
                if (first == null) {
                    changed.await();
                    continue;
                }
                Instant now = clock.instant();
                if (first.dueBy(now)) {
                    queue.poll();
                    Runnable action = first.action;
                    first.action = null;
                    actions.execute(action);
                    continue;
                }
                long waitNanos = Duration.between(now, first.due()).toNanos();
                changed.awaitNanos(Math.max(waitNanos, TimeUnit.MICROSECONDS.toNanos(50)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the waiting thread; pending wake-ups are dropped. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
    }
}
