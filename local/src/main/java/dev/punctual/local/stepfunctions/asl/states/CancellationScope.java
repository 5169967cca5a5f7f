package dev.punctual.local.stepfunctions.asl.states;

import dev.punctual.local.time.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a stop withdraws: the pending wake-ups of an execution, or of one Map iteration or Parallel
 * branch, and those of the scopes nested in it (Temporal's cancellation scopes, in small). A stopped
 * scope reports nothing further.
 */
final class CancellationScope {

    private final CancellationScope parent;
    private final Set<Timer.Cancellable> pending = ConcurrentHashMap.newKeySet();
    private final List<CancellationScope> children = new ArrayList<>();
    private volatile boolean stopped;

    CancellationScope(CancellationScope parent) {
        this.parent = parent;
    }

    CancellationScope child() {
        CancellationScope child = new CancellationScope(this);
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
        List<CancellationScope> nested;
        synchronized (children) {
            nested = List.copyOf(children);
        }
        nested.forEach(CancellationScope::stop);
    }
}
