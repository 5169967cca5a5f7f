package dev.punctual.local.stepfunctions.asl.states;

import dev.punctual.local.time.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a stop withdraws: the pending wake-ups of an execution, or of one Map iteration or Parallel
 * branch, and those of the scopes nested in it. A stopped scope reports nothing further.
 */
final class Scope {

    private final Scope parent;
    private final Set<Timer.Cancellable> pending = ConcurrentHashMap.newKeySet();
    private final List<Scope> children = new ArrayList<>();
    private volatile boolean stopped;

    Scope(Scope parent) {
        this.parent = parent;
    }

    Scope child() {
        Scope child = new Scope(this);
        synchronized (children) {
            children.add(child);
        }
        if (stopped) {
            child.stop();
        }
        return child;
    }

    boolean stopped() {
        return stopped || (parent != null && parent.stopped());
    }

    void track(Timer.Cancellable cancellable) {
        pending.add(cancellable);
        if (stopped()) {
            cancellable.cancel();
        }
    }

    void untrack(Timer.Cancellable cancellable) {
        pending.remove(cancellable);
    }

    void stop() {
        stopped = true;
        for (Timer.Cancellable cancellable : pending) {
            cancellable.cancel();
        }
        pending.clear();
        List<Scope> nested;
        synchronized (children) {
            nested = List.copyOf(children);
        }
        nested.forEach(Scope::stop);
    }
}
