package dev.punctual.local.retention;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/** The bounds of every kind of past the runtime keeps ({@link Retained}); immutable. */
public final class RetentionSettings {

    private final Map<Retained, Retention> bounds;

    private RetentionSettings(Map<Retained, Retention> bounds) {
        this.bounds = bounds;
    }

    /** Every kind at its default. */
    public static RetentionSettings defaults() {
        Map<Retained, Retention> bounds = new EnumMap<>(Retained.class);
        for (Retained kind : Retained.values()) {
            bounds.put(kind, kind.defaults());
        }
        return new RetentionSettings(bounds);
    }

    /** These settings with {@code kind} bounded by {@code retention}. */
    public RetentionSettings with(Retained kind, Retention retention) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(retention, "retention");
        Map<Retained, Retention> next = new EnumMap<>(bounds);
        next.put(kind, retention);
        return new RetentionSettings(next);
    }

    /**
     * These settings with one bound changed, written {@code name=value} as {@code --retain} takes it:
     * {@code closed-executions=20000} or {@code closed-executions=2h}.
     *
     * @throws IllegalArgumentException naming the kinds there are, or what the value may be
     */
    public RetentionSettings withOverride(String nameEqualsValue) {
        int equals = nameEqualsValue.indexOf('=');
        if (equals < 0) {
            throw new IllegalArgumentException("expected NAME=VALUE, e.g. closed-executions=20000 or events=2h; got '"
                    + nameEqualsValue + "'");
        }
        String name = nameEqualsValue.substring(0, equals).strip();
        Retained kind = Retained.byOptionName(name).orElseThrow(() -> new IllegalArgumentException(
                "unknown kind '" + name + "'; the kinds are " + Retained.optionNames()));
        try {
            return with(kind, of(kind).with(nameEqualsValue.substring(equals + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    /** The bounds of {@code kind}. */
    public Retention of(Retained kind) {
        return bounds.get(kind);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RetentionSettings that && bounds.equals(that.bounds);
    }

    @Override
    public int hashCode() {
        return bounds.hashCode();
    }

    /** One line for start-up output: each kind's bounds. */
    @Override
    public String toString() {
        StringJoiner line = new StringJoiner(", ");
        bounds.forEach((kind, retention) -> line.add(kind.optionName() + " " + retention));
        return line.toString();
    }
}
