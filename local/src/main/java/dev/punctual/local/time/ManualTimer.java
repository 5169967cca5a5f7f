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
 *
 * <p>Wake-ups that only pace polling ({@link #schedulePoll}) are kept apart from those that owe work,
 * so {@link #skipToNextWork} can move time straight to the next instant something is owed, however many
 * polls would have come in between: a year of a stream reader's 50 ms pauses is not 600 million steps.
 */
public final class ManualTimer implements Timer {

    private final ManualClock clock;
    private final WakeUpQueue work = new WakeUpQueue();
    private final WakeUpQueue polls = new WakeUpQueue();
    /** One shared back-reference per queue, so an entry costs no extra object. */
    private final WakeUpQueue.Owner workOwner = entry -> cancel(work, entry);
    private final WakeUpQueue.Owner pollOwner = entry -> cancel(polls, entry);

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
        return work.add(at, action, workOwner);
    }

    @Override
    public synchronized Cancellable schedulePoll(Instant at, Runnable action) {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(action, "action");
        return polls.add(at, action, pollOwner);
    }

    private synchronized boolean cancel(WakeUpQueue queue, WakeUpQueue.Entry entry) {
        return queue.remove(entry);
    }

    /** The earliest pending instant, polls included, or {@code null} when nothing is pending. */
    public synchronized Instant nextWakeUp() {
        WakeUpQueue.Entry first = first();
        return first == null ? null : first.due();
    }

    /** The earliest pending instant that owes work (no poll), or {@code null} when none is pending. */
    public synchronized Instant nextWorkWakeUp() {
        WakeUpQueue.Entry first = work.peek();
        return first == null ? null : first.due();
    }

    /** Wake-ups pending, polls included. */
    public synchronized int pending() {
        return work.size() + polls.size();
    }

    /** Whether anything, a poll included, is due at the current instant and has not run yet. */
    public synchronized boolean anythingDue() {
        WakeUpQueue.Entry first = first();
        return first != null && first.dueBy(clock.instant());
    }

    /** The earlier head of the two queues; work first on a tie. */
    private WakeUpQueue.Entry first() {
        WakeUpQueue.Entry owed = work.peek();
        WakeUpQueue.Entry poll = polls.peek();
        if (poll == null) {
            return owed;
        }
        if (owed == null) {
            return poll;
        }
        return poll.due().isBefore(owed.due()) ? poll : owed;
    }

    /** Runs every action already due at the current instant, including ones they schedule for now. */
    public void runDue() {
        while (true) {
            Runnable action;
            synchronized (this) {
                WakeUpQueue.Entry first = first();
                if (first == null || !first.dueBy(clock.instant())) {
                    return;
                }
                (first == work.peek() ? work : polls).poll();
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

    /**
     * Moves the clock straight to the earliest wake-up that owes work at or before {@code target}, or to
     * {@code target} when none does, and runs everything due there. Polls that fell due on the way run
     * once, there, late; work never runs late or early. Returns the instant the clock reached.
     */
    public Instant skipToNextWork(Instant target) {
        Instant next = nextWorkWakeUp();
        Instant to = next == null || next.isAfter(target) ? target : next;
        if (to.isAfter(clock.instant())) {
            clock.set(to);
        }
        runDue();
        return clock.instant();
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
