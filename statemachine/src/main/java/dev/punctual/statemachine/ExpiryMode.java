package dev.punctual.statemachine;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a table's expirations are scheduled. Chosen per table: the CDK construct's {@code mode}, the
 * local runtime's {@code --mode}, and the handler's {@link StreamWiring#ENV_MODE}.
 */
public enum ExpiryMode {

    /**
     * One {@code expire-item} execution per item and TTL: every pending expiration is a running
     * execution in the console. About four state transitions per item; bounded by the
     * open-execution and StartExecution quotas.
     */
    PER_ITEM("per-item"),

    /**
     * Items are indexed into time buckets and one {@code expire-bucket} execution runs per non-empty
     * bucket: each item is still deleted at its own TTL second, at a small fraction of the cost,
     * with open executions bounded by the number of buckets, not items.
     */
    WINDOWED("windowed");

    private final String label;

    ExpiryMode(String label) {
        this.label = label;
    }

    /** The name used on the command line and in {@link StreamWiring#ENV_MODE}. */
    public String label() {
        return label;
    }

    /**
     * The mode a label names, ignoring case.
     *
     * @throws IllegalArgumentException listing the labels when none matches
     */
    public static ExpiryMode fromLabel(String text) {
        String wanted = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (ExpiryMode mode : values()) {
            if (mode.label.equals(wanted)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown expiry mode '" + text + "'; expected one of "
                + Arrays.stream(values()).map(ExpiryMode::label).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return label;
    }
}
