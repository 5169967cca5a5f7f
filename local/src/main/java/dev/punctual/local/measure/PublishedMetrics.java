package dev.punctual.local.measure;

import dev.punctual.local.metrics.MetricAggregate;
import dev.punctual.local.metrics.MetricSeries;
import dev.punctual.local.metrics.RetainedMetrics;
import dev.punctual.statemachine.ExpiryMetricNames;
import java.util.Locale;
import java.util.Map;

/**
 * What the stream handler published for one table during a run, under the metric names the CDK
 * dashboard and alarms read ({@link ExpiryMetricNames}): {@code demo} and {@code bench} report it
 * beside the lag they measure themselves. The handler's {@code ExpiryLag} is taken when it handles
 * Punctual's own REMOVE record, so it includes the stream's delay: an upper bound of the true lag.
 */
public record PublishedMetrics(long[] lagMillis, double expiredByPunctual, double expiredByNativeTtl,
                               double recordsScheduled, double recordsSuperseded, double recordsIgnored,
                               double startExecutionFailures) {

    /**
     * What {@code metrics} holds for {@code table}: the counts from its totals since the start, the lags
     * from the points it still keeps one by one ({@code --retain metric-points}; a trial keeps enough).
     */
    public static PublishedMetrics of(RetainedMetrics metrics, String table) {
        long[] lags = metrics.points().stream()
                .filter(point -> table.equals(point.dimensions().get(ExpiryMetricNames.DIMENSION_TABLE)))
                .filter(p -> p.name().equals(ExpiryMetricNames.EXPIRY_LAG))
                .mapToLong(p -> (long) p.value()).sorted().toArray();
        Map<MetricSeries, MetricAggregate> totals = metrics.totals();
        return new PublishedMetrics(lags, sum(totals, table, ExpiryMetricNames.EXPIRED_BY_PUNCTUAL),
                sum(totals, table, ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL),
                sum(totals, table, ExpiryMetricNames.RECORDS_SCHEDULED),
                sum(totals, table, ExpiryMetricNames.RECORDS_SUPERSEDED),
                sum(totals, table, ExpiryMetricNames.RECORDS_IGNORED),
                sum(totals, table, ExpiryMetricNames.START_EXECUTION_FAILURES));
    }

    private static double sum(Map<MetricSeries, MetricAggregate> totals, String table, String name) {
        return totals.entrySet().stream()
                .filter(e -> e.getKey().name().equals(name)
                        && table.equals(e.getKey().dimension(ExpiryMetricNames.DIMENSION_TABLE)))
                .mapToDouble(e -> e.getValue().sum()).sum();
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
