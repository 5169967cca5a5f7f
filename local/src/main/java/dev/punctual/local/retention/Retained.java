package dev.punctual.local.retention;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What the local runtime keeps about the past, each kind bounded by a count and by an age: whichever
 * bound is reached first forgets the oldest. {@code --retain NAME=VALUE} changes one bound;
 * {@code docs/local-runtime.md} prints {@link #markdownTable()} verbatim (a test compares them).
 *
 * <p>The defaults keep a day at a few hundred writes a second within a few hundred MB: a closed
 * execution with its history and JSON is a few KB, an event or an expiry well under one, a stream
 * record of a small item about 0.7 KB in DynamoDB Local's SQLite (250,000 of them about 170 MB: 14
 * minutes of an insert and a remove record at 150 writes a second), a schedule index item about 620
 * bytes.
 */
public enum Retained {

    CLOSED_EXECUTIONS("closed-executions", 10_000, Duration.ofHours(1),
            "closed Standard executions that DescribeExecution, GetExecutionHistory, ListExecutions and the console"
                    + " still serve; an older one answers `ExecutionDoesNotExist`, as AWS does after its 90 days"),
    EVENTS("events", 10_000, Duration.ofHours(1),
            "`ItemExpired` and other events the EventBridge endpoint stored for `punctual events`"),
    EXPIRIES("expiries", 1_000, Duration.ofHours(1), "expiries the console's recent list shows"),
    DEAD_LETTERS("dead-letters", 1_000, Duration.ofDays(4),
            "stream dead letters (`punctual dlq`); 4 days is SQS's default message retention"),
    METRIC_POINTS("metric-points", 20_000, Duration.ofMinutes(15),
            "data points the stream handler published, kept one by one (lag percentiles of a run)"),
    METRIC_MINUTES("metric-minutes", 1_440, Duration.ofHours(24),
            "per-minute aggregates (count, sum, min, max) of each published metric, per table"),
    STREAM_RECORDS("stream-records", 250_000, Duration.ofHours(24),
            "DynamoDB Local's stream records, of every table; one a Punctual mapping has not processed yet is kept"
                    + " however old. 24 hours is DynamoDB Streams' retention"),
    /**
     * Windowed mode's schedule index items (entries and seals) of buckets that are over and that no
     * execution can still read; in AWS, native TTL removes them a week after their second. An item is
     * about 620 bytes in DynamoDB Local's SQLite with its indexes, so 200,000 are about 125 MB (in native
     * memory without {@code --data-dir}): a long day at 150 items a second keeps about 20 minutes of
     * the past, and one expiry a second the whole hour.
     */
    SCHEDULE_INDEX("schedule-index", 200_000, Duration.ofHours(1),
            "windowed mode's schedule index entries and seals of buckets that are over; whatever the bounds, kept from"
                    + " the oldest bucket an execution may still read (running, or failed and still to be replaced) on");

    private final String optionName;
    private final int defaultCount;
    private final Duration defaultAge;
    private final String meaning;

    Retained(String optionName, int defaultCount, Duration defaultAge, String meaning) {
        this.optionName = optionName;
        this.defaultCount = defaultCount;
        this.defaultAge = defaultAge;
        this.meaning = meaning;
    }

    /** The name {@code --retain} takes, e.g. {@code closed-executions}. */
    public String optionName() {
        return optionName;
    }

    /** The bounds without {@code --retain}. */
    public Retention defaults() {
        return new Retention(defaultCount, defaultAge);
    }

    /** The kind named {@code optionName}, if there is one. */
    public static Optional<Retained> byOptionName(String optionName) {
        return Arrays.stream(values()).filter(r -> r.optionName.equals(optionName)).findFirst();
    }

    /** Every option name, comma-separated, for error messages. */
    public static String optionNames() {
        return Arrays.stream(values()).map(Retained::optionName).collect(Collectors.joining(", "));
    }

    /** The table {@code docs/local-runtime.md} shows. */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder()
                .append("| `--retain` name | what | count (default) | age (default) |\n")
                .append("|---|---|---|---|\n");
        for (Retained kind : values()) {
            table.append("| `").append(kind.optionName).append("` | ").append(kind.meaning).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", kind.defaultCount)).append(" | ")
                    .append(Retention.formatAge(kind.defaultAge)).append(" |\n");
        }
        return table.toString();
    }
}
