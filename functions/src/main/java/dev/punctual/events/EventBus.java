package dev.punctual.events;

import java.util.List;

/** Where expiry events go: EventBridge's {@code PutEvents}, one call at a time. */
public interface EventBus {

    /**
     * Puts at most {@link dev.punctual.statemachine.ExpiryEvents#MAX_ENTRIES_PER_CALL} entries in one call.
     *
     * @return for each entry, in order, {@code null} when it was accepted, else the error code EventBridge
     *     gave it (the whole call failing gives every entry the call's error)
     */
    List<String> put(List<EventEntry> entries);
}
