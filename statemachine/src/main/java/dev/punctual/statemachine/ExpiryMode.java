package dev.punctual.statemachine;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a table's expirations are scheduled. Chosen per table: the CDK construct's {@code mode}, the
 * local runtime's {@code --mode}, and the handler's {@link StreamWiring#ENV_MODE}.
 *
 * <p>A constant here is a mode's name and the facts every module reads alike. What a mode does, each
 * module holds in one type of its own, registered in one exhaustive {@code switch} on this enum: the
 * functions' {@code FunctionModes} (its scheduler: its plans and outcomes), the construct's
 * {@code ModeResources} (what it deploys) and the local runtime's {@code LocalModes} (what it wires and
 * how pending work is read). A new constant fails the build until each of those registers it.
 */
public enum ExpiryMode {

    /**
     * One {@code expire-item} execution per item and TTL: every pending expiration is a running
     * execution in the console. About four state transitions per item; bounded by the
     * open-execution and StartExecution quotas.
     */
    PER_ITEM("per-item", true, false),

    /**
     * Items are indexed into time buckets and one {@code expire-bucket} execution runs per non-empty
     * bucket: each item is still deleted at its own TTL second, at a small fraction of the cost,
     * with open executions bounded by the number of buckets, not items.
     */
    WINDOWED("windowed", false, true);

    private final String label;
    private final boolean stopsStaleExecutions;
    private final boolean deletesInBuckets;

    ExpiryMode(String label, boolean stopsStaleExecutions, boolean deletesInBuckets) {
        this.label = label;
        this.stopsStaleExecutions = stopsStaleExecutions;
        this.deletesInBuckets = deletesInBuckets;
    }

    /**
     * Whether the mode can stop the execution a TTL change or an early delete made stale: per item,
     * each item's execution is its own; windowed, a bucket's execution serves many items, and a stale
     * index entry deletes nothing because its delete is conditional. Cancellation is only offered
     * (construct, handler, local runtime) where this holds.
     */
    public boolean stopsStaleExecutions() {
        return stopsStaleExecutions;
    }

    /**
     * Whether a bucket function deletes the mode's items, a due second's several at once: as many in
     * flight as the bucket delete concurrency ({@link StreamWiring#DEFAULT_BUCKET_CONCURRENCY} by
     * default). Per item, each item's own execution deletes it. That setting is only offered (construct,
     * local runtime) where this holds.
     */
    public boolean deletesInBuckets() {
        return deletesInBuckets;
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

    /** The labels as a sentence lists them: {@code per-item or windowed}. */
    public static String choices() {
        List<String> labels = Arrays.stream(values()).map(ExpiryMode::label).toList();
        return labels.size() == 1 ? labels.get(0)
                : String.join(", ", labels.subList(0, labels.size() - 1)) + " or " + labels.get(labels.size() - 1);
    }

    @Override
    public String toString() {
        return label;
    }
}
