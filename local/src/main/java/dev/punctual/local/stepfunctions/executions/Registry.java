package dev.punctual.local.stepfunctions.executions;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The state machines by name, with the counts AWS limits: open executions (against the account's
 * quota) and closed ones kept ({@link ClosedExecutions}: the oldest closed are forgotten first).
 * Changes to the set of state machines are made while holding this object's monitor.
 */
final class Registry {

    private final Map<String, StateMachine> machines = new ConcurrentHashMap<>();
    private final int maxOpenExecutions;
    private final ClosedExecutions closedExecutions;
    private final AtomicInteger openExecutions = new AtomicInteger();
    private final AtomicInteger peakOpenExecutions = new AtomicInteger();
    private final AtomicLong lastCreationMillis = new AtomicLong();

    Registry(int maxOpenExecutions, ClosedExecutions closedExecutions) {
        this.maxOpenExecutions = maxOpenExecutions;
        this.closedExecutions = closedExecutions;
    }

    /** The state machine of this name, or {@code null}. */
    StateMachine get(String name) {
        return machines.get(name);
    }

    Collection<StateMachine> all() {
        return machines.values();
    }

    void put(StateMachine sm) {
        machines.put(sm.name, sm);
        lastCreationMillis.accumulateAndGet(sm.creationMillis, Math::max);
    }

    /** A creation time for a new state machine: now, but always after the last one's. */
    long nextCreationMillis(long nowMillis) {
        return lastCreationMillis.updateAndGet(last -> Math.max(nowMillis, last + 1));
    }

    /** Counts a new execution open, or refuses it beyond the quota of open executions. */
    void open() {
        int open = openExecutions.incrementAndGet();
        if (open > maxOpenExecutions) {
            openExecutions.decrementAndGet();
            throw new StepFunctionsException(ErrorCode.EXECUTION_LIMIT_EXCEEDED, "Execution Limit Exceeded: "
                    + maxOpenExecutions + " executions are open; wait for some to close or stop them");
        }
        peakOpenExecutions.accumulateAndGet(open, Math::max);
    }

    /** Counts a recovered execution open: it was admitted before the restart. */
    void openRecovered() {
        openExecutions.incrementAndGet();
    }

    /** After an execution closed: counts it, keeps it within the retention, and lets a deleted machine go. */
    void closed(Execution e) {
        openExecutions.decrementAndGet();
        StateMachine sm = e.stateMachine;
        sm.running.decrementAndGet();
        closedExecutions.retain(e);
        if (sm.deleting) {
            synchronized (this) {
                removeIfDeleted(sm);
            }
        }
    }

    /** A machine being deleted goes once none of its executions runs; call holding this monitor. */
    void removeIfDeleted(StateMachine sm) {
        if (sm.deleting && sm.running.get() == 0) {
            machines.remove(sm.name, sm);
        }
    }

    /** Every running execution, oldest first. */
    List<Execution> running() {
        List<Execution> running = new ArrayList<>();
        for (StateMachine sm : machines.values()) {
            for (Execution e : sm.executionsByName.values()) {
                if (e.status == ExecutionStatus.RUNNING) {
                    running.add(e);
                }
            }
        }
        running.sort(Comparator.comparingLong(e -> e.startMillis));
        return running;
    }

    ClosedExecutions closedExecutions() {
        return closedExecutions;
    }

    int openExecutions() {
        return openExecutions.get();
    }

    int peakOpenExecutions() {
        return peakOpenExecutions.get();
    }

    void resetPeakOpenExecutions() {
        peakOpenExecutions.set(openExecutions.get());
    }
}
