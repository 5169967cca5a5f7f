package dev.punctual.expiry;

import java.util.List;
import java.util.Optional;

/** What every mode does with a decision that asks for nothing: the one outcome all modes share. */
public enum Unscheduled implements Outcome, Scheduled {

    /** Nothing to do: no valid TTL, TTL unchanged, an expiry's own delete, ... (the decision's reason says). */
    IGNORED;

    @Override
    public Outcome outcome() {
        return this;
    }

    @Override
    public Effect effect() {
        return Effect.NONE;
    }

    @Override
    public Optional<String> executionName() {
        return Optional.empty();
    }

    @Override
    public List<String> stopped() {
        return List.of();
    }
}
