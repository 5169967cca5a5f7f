package dev.punctual.local.measure;

import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import java.time.Duration;
import java.util.Locale;

/**
 * What a bulk import did to expiries due soon after it: how long the import took to write and to
 * schedule, and how late the few items written right after it expired.
 *
 * @param importSeconds from the first write of the import until the stream mapping had no work left
 *     (every record of the import handled, throttled ones retried until they succeeded)
 * @param lateAfterSeconds from the import's last write to the first late-wave item's TTL; the wave is
 *     due over the minute from there
 * @param late items deleted more than {@link #LATE} after their TTL, or not at all within the wait
 * @param lagMillis lag of each deleted late-wave item, sorted
 * @param handling how the stream handler kept up while the import was written
 */
public record BulkImportReport(int importItems, double writeSeconds, double importSeconds, int lateWaveItems,
                               long lateAfterSeconds, int late, int missed, int early, long[] lagMillis, ThrottleCounts throttled,
                               ImportHandling handling) {

    /** Lag beyond which an expiry counts as late: Punctual's promise is the second. */
    public static final Duration LATE = Duration.ofSeconds(1);

    long lag(double percentile) {
        return Percentiles.nearestRank(lagMillis, percentile);
    }

    public String toJson() {
        return String.format(Locale.ROOT,
                "{\"importItems\":%d,\"importWriteSeconds\":%.1f,\"importSchedulingSeconds\":%.1f,"
                        + "\"lateWaveItems\":%d,\"lateAfterSeconds\":%d,\"late\":%d,\"missed\":%d,\"early\":%d,"
                        + "\"lagMs\":{\"p50\":%d,\"p99\":%d,\"max\":%d},"
                        + "\"throttled\":{\"startExecution\":%d,\"stopExecution\":%d,\"stateTransitions\":%d},\"handler\":%s}",
                importItems, writeSeconds, importSeconds, lateWaveItems, lateAfterSeconds, late, missed, early, lag(50),
                lag(99), Percentiles.max(lagMillis), throttled.startExecution(), throttled.stopExecution(),
                throttled.stateTransitions(), handling.toJson());
    }

    public String toText() {
        return String.format(Locale.ROOT, String.join("%n",
                "import             %d items, written in %.1f s, scheduled after %.1f s",
                "then               %d items due %d-%d s after the import ended",
                "late (> 1 s)       %d",
                "missed             %d",
                "early              %d   (must be 0)",
                "lag p50 / p99 / max  %d / %d / %d ms",
                "throttled          %d StartExecution, %d StopExecution, %d state transitions",
                "%s"),
                importItems, writeSeconds, importSeconds, lateWaveItems, lateAfterSeconds, lateAfterSeconds + 60, late, missed,
                early, lag(50), lag(99), Percentiles.max(lagMillis), throttled.startExecution(),
                throttled.stopExecution(), throttled.stateTransitions(), handling.toText());
    }
}
