package dev.punctual.local.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A timer on a {@link ManualClock} with no thread of its own: {@link #advanceTo} moves the clock
 * step by step through the due instants and runs each due action on the caller, in due order, so a
 * test sees exactly the instants an action would have run at and never sleeps.
 */
public final class ManualTimer implements Timer {

    private final ManualClock clock;
    private final WakeUpQueue queue = new WakeUpQueue();
    /** One shared back-reference for every entry, so an entry costs no extra object. */
    private final WakeUpQueue.Owner owner = this::cancel;

    public ManualTimer(ManualClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A manual timer whose clock starts at {@code start}. */
    public static ManualTimer startingAt(Instant start) {
        return new ManualTimer(new ManualClock(start));
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public synchronized Cancellable schedule(Instant at, Runnable action) {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(action, "action");
        return queue.add(at, action, owner);
    }

    private synchronized boolean cancel(WakeUpQueue.Entry entry) {
        return queue.remove(entry);
    }

    /** The earliest pending instant, or {@code null} when nothing is pending. */
    public synchronized Instant nextWakeUp() {
        WakeUpQueue.Entry first = queue.peek();
        return first == null ? null : first.due();
    }

    public synchronized int pending() {
        return queue.size();
    }

    /** Runs every action already due at the current instant, including ones they schedule for now. */
    public void runDue() {
        while (true) {
            Runnable action;
            synchronized (this) {
                WakeUpQueue.Entry first = queue.peek();
                if (first == null || !first.dueBy(clock.instant())) {
                    return;
                }
                queue.poll();
                action = first.action;
            }
            action.run();
        }
    }

    /**
     * Moves the clock to {@code target}, stopping at every due instant on the way to run what is due
     * there, and returns the instants actions ran at.
     */
    public List<Instant> advanceTo(Instant target) {
        List<Instant> ranAt = new ArrayList<>();
        runDue();
        while (true) {
            Instant next = nextWakeUp();
            if (next == null || next.isAfter(target)) {
                break;
            }
            if (next.isAfter(clock.instant())) {
                clock.set(next);
            }
            ranAt.add(clock.instant());
            runDue();
        }
        if (target.isAfter(clock.instant())) {
            clock.set(target);
        }
        return ranAt;
    }

    public List<Instant> advance(Duration duration) {
        return advanceTo(clock.instant().plus(duration));
    }

    /** Runs every pending action, moving the clock as far as the last one (at most {@code limit} steps). */
    public void runAll(int limit) {
        for (int i = 0; i < limit; i++) {
            Instant next = nextWakeUp();
            if (next == null) {
                return;
            }
            advanceTo(next);
        }
        throw new IllegalStateException("Still " + pending() + " wake-ups pending after " + limit + " steps");
    }
}
