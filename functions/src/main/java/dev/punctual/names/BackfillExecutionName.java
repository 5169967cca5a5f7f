package dev.punctual.names;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of a {@code backfill} execution that carries a run on after its predecessor spent its
 * share of history: {@code backfill-<table>-<run id>-<digest>}, e.g.
 * {@code backfill-orders-20260101T000000Z-c6os3g-5aoslbhq}, at most 66 characters. The first
 * execution of a run is named by whoever starts it; the run's id ({@link #runId}) is derived from it.
 *
 * @param tableLabel the table's name cut to 24 characters
 * @param runId the run's id, {@code <start>-<digest>}
 * @param predecessorDigest 8 base32 characters of the run id and the predecessor's ARN
 */
public record BackfillExecutionName(String tableLabel, String runId, String predecessorDigest) {

    private static final String PREFIX = "backfill-";
    private static final String DOMAIN = "punctual/backfill/v1";
    private static final int RUN_DIGEST_CHARS = 6;
    private static final int PREDECESSOR_DIGEST_CHARS = 8;
    private static final Pattern TABLE_LABEL = Pattern.compile(NameText.TABLE_LABEL_PATTERN);
    private static final Pattern RUN_ID = Pattern.compile(NameText.INSTANT_PATTERN + "-"
            + NameText.BASE32_PATTERN + "{" + RUN_DIGEST_CHARS + "}");
    private static final Pattern PREDECESSOR_DIGEST =
            Pattern.compile(NameText.BASE32_PATTERN + "{" + PREDECESSOR_DIGEST_CHARS + "}");
    private static final Pattern NAME = Pattern.compile(PREFIX + "(" + TABLE_LABEL.pattern() + ")-(" + RUN_ID.pattern()
            + ")-(" + PREDECESSOR_DIGEST.pattern() + ")");

    public BackfillExecutionName {
        Objects.requireNonNull(tableLabel, "tableLabel");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(predecessorDigest, "predecessorDigest");
        if (!TABLE_LABEL.matcher(tableLabel).matches() || !RUN_ID.matcher(runId).matches()
                || !PREDECESSOR_DIGEST.matcher(predecessorDigest).matches()) {
            throw new IllegalArgumentException("not a backfill successor's table label, run id and digest: '" + tableLabel
                    + "', '" + runId + "', '" + predecessorDigest + "'");
        }
    }

    /**
     * The id of a backfill run begun at {@code startedAt} by the execution {@code executionArn}:
     * {@code <start>-<digest>}, e.g. {@code 20260101T000000Z-c6os3g}. The same execution (a retried
     * step) derives the same id; two executions beginning in the same second derive different ones.
     */
    public static String runId(Instant startedAt, String executionArn) {
        return NameText.instant(startedAt) + '-' + NameDigest.of(DOMAIN).text(executionArn).base32(RUN_DIGEST_CHARS);
    }

    /**
     * The execution that carries run {@code runId} of {@code table} on after {@code executionArn}.
     * Derived from the predecessor, so a retried start names the same successor, and a run started
     * again by hand and continued later names another.
     */
    public static BackfillExecutionName successor(String table, String runId, String executionArn) {
        return new BackfillExecutionName(NameText.tableLabel(table), runId,
                NameDigest.of(DOMAIN).text(runId).text(executionArn).base32(PREDECESSOR_DIGEST_CHARS));
    }

    /** The execution's name. */
    @Override
    public String toString() {
        return PREFIX + tableLabel + '-' + runId + '-' + predecessorDigest;
    }

    /** The parts of {@code name}; empty when it is not the name of a backfill run's successor. */
    public static Optional<BackfillExecutionName> parse(String name) {
        Matcher parts = NAME.matcher(name);
        return parts.matches() ? Optional.of(new BackfillExecutionName(parts.group(1), parts.group(2), parts.group(3)))
                : Optional.empty();
    }
}
