package dev.punctual.expiry;

import java.util.List;

/** Tells several {@link ChangeProcessor.Listener}s of every record, in order: the log line, then the metrics. */
public final class ListenerChain implements ChangeProcessor.Listener {

    private final List<ChangeProcessor.Listener> listeners;

    public ListenerChain(ChangeProcessor.Listener... listeners) {
        this.listeners = List.of(listeners);
    }

    @Override
    public void decided(StreamChange change, Plan plan, Scheduled scheduled) {
        listeners.forEach(listener -> listener.decided(change, plan, scheduled));
    }

    @Override
    public void failed(StreamChange change, Plan plan, RuntimeException error) {
        listeners.forEach(listener -> listener.failed(change, plan, error));
    }

    @Override
    public void skipped(StreamChange change, String failedSequenceNumber) {
        listeners.forEach(listener -> listener.skipped(change, failedSequenceNumber));
    }
}
