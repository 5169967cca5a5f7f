package dev.punctual.local.measure;

import dev.punctual.expiry.RecordedMetrics;
import dev.punctual.statemachine.ExpiryMetricNames;
import java.util.List;
import java.util.Locale;

/**
 * What the stream handler published for one table during a run, under the metric names the CDK
 * dashboard and alarms read ({@link ExpiryMetricNames}): {@code demo} and {@code bench} report it
 * beside the lag they measure themselves. The handler's {@code ExpiryLag} is taken when it handles
 * Punctual's own REMOVE record, so it includes the stream's delay: an upper bound of the true lag.
 */
public record PublishedMetrics(long[] lagMillis, double expiredByPunctual, double expiredByNativeTtl,
                               double recordsScheduled, double recordsSuperseded, double recordsIgnored,
                               double startExecutionFailures) {

    /** The points {@code metrics} holds for {@code table}. */
    public static PublishedMetrics of(RecordedMetrics metrics, String table) {
        List<RecordedMetrics.Point> points = metrics.points().stream()
                .filter(point -> table.equals(point.dimensions().get(ExpiryMetricNames.DIMENSION_TABLE)))
                .toList();
        long[] lags = points.stream().filter(p -> p.name().equals(ExpiryMetricNames.EXPIRY_LAG))
                .mapToLong(p -> (long) p.value()).sorted().toArray();
        return new PublishedMetrics(lags, sum(points, ExpiryMetricNames.EXPIRED_BY_PUNCTUAL),
                sum(points, ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL), sum(points, ExpiryMetricNames.RECORDS_SCHEDULED),
                sum(points, ExpiryMetricNames.RECORDS_SUPERSEDED), sum(points, ExpiryMetricNames.RECORDS_IGNORED),
                sum(points, ExpiryMetricNames.START_EXECUTION_FAILURES));
    }

    private static double sum(List<RecordedMetrics.Point> points, String name) {
        return points.stream().filter(p -> p.name().equals(name)).mapToDouble(RecordedMetrics.Point::value).sum();
    }

    /** {@code ExpiryLag} at a percentile (nearest rank), or 0 without points. */
    public long lagPercentile(double percentile) {
        return Percentiles.nearestRank(lagMillis, percentile);
    }

    /** The {@code metrics} object of {@code bench --json}, keyed by metric name. */
    public String toJson() {
        return String.format(Locale.ROOT,
                "{\"namespace\":\"%s\",\"%s\":{\"count\":%d,\"p50\":%d,\"p99\":%d,\"max\":%d},\"%s\":%.0f,\"%s\":%.0f,"
                        + "\"%s\":%.0f,\"%s\":%.0f,\"%s\":%.0f,\"%s\":%.0f}",
                ExpiryMetricNames.NAMESPACE, ExpiryMetricNames.EXPIRY_LAG, lagMillis.length, lagPercentile(50),
                lagPercentile(99), Percentiles.max(lagMillis),
                ExpiryMetricNames.EXPIRED_BY_PUNCTUAL, expiredByPunctual, ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL,
                expiredByNativeTtl, ExpiryMetricNames.RECORDS_SCHEDULED, recordsScheduled,
                ExpiryMetricNames.RECORDS_SUPERSEDED, recordsSuperseded, ExpiryMetricNames.RECORDS_IGNORED, recordsIgnored,
                ExpiryMetricNames.START_EXECUTION_FAILURES, startExecutionFailures);
    }

    /** One line for the text report. */
    public String toText() {
        return String.format(Locale.ROOT, "published          %s p50 %d ms, p99 %d ms (%d points, stream delay included);"
                        + " %s %.0f, %s %.0f",
                ExpiryMetricNames.EXPIRY_LAG, lagPercentile(50), lagPercentile(99), lagMillis.length,
                ExpiryMetricNames.EXPIRED_BY_PUNCTUAL, expiredByPunctual, ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL,
                expiredByNativeTtl);
    }
}
