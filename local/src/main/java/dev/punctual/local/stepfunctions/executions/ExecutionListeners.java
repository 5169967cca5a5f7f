package dev.punctual.local.stepfunctions.executions;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/** The {@link ExecutionListener}s of one engine, told of every execution started or closed. */
final class ExecutionListeners {

    private static final System.Logger LOG = System.getLogger(ExecutionListeners.class.getName());

    private final List<ExecutionListener> listeners = new CopyOnWriteArrayList<>();

    void add(ExecutionListener listener) {
        listeners.add(listener);
    }

    void remove(ExecutionListener listener) {
        listeners.remove(listener);
    }

    void started(Execution e) {
        tell(e, ExecutionListener::started);
    }

    void closed(Execution e) {
        tell(e, ExecutionListener::closed);
    }

    /** A listener's failure is its own: it must never break starting or closing an execution. */
    private void tell(Execution e, BiConsumer<ExecutionListener, ExecutionDescription> event) {
        if (listeners.isEmpty()) {
            return;
        }
        ExecutionDescription description = e.describe();
        for (ExecutionListener listener : listeners) {
            try {
                event.accept(listener, description);
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.WARNING, "An execution listener failed on " + description.name() + ": "
                        + ex);
            }
        }
    }
}
