package dev.punctual.events;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/** A fake {@link EventBus}: records every call, and refuses what {@code refusal} names an error code for. */
public final class RecordingEventBus implements EventBus {

    private final List<List<EventEntry>> calls = Collections.synchronizedList(new ArrayList<>());
    private volatile Function<EventEntry, String> refusal = entry -> null;

    /** From now on, refuse each entry {@code refusal} gives an error code for ({@code null}: accept). */
    public void refuse(Function<EventEntry, String> refusal) {
        this.refusal = refusal;
    }

    @Override
    public List<String> put(List<EventEntry> entries) {
        calls.add(List.copyOf(entries));
        List<String> errors = new ArrayList<>(entries.size());
        entries.forEach(entry -> errors.add(refusal.apply(entry)));
        return errors;
    }

    /** Every call's entries, in call order. */
    public List<List<EventEntry>> calls() {
        return List.copyOf(calls);
    }

    /** Every entry sent, in order, refused ones included. */
    public List<EventEntry> sent() {
        List<EventEntry> all = new ArrayList<>();
        calls().forEach(all::addAll);
        return all;
    }
}
