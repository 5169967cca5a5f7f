package dev.punctual.local.metrics;

import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.RecordedMetrics;
import dev.punctual.local.retention.RetainedLog;
import dev.punctual.local.retention.Retention;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The local runtime's {@link MetricSink}: what the functions publish, kept as CloudWatch would show it
 * to someone watching a long run, not as every point ever sent. Three views, each bounded:
 * <ul>
 *   <li>the newest points one by one ({@code --retain metric-points}), for percentiles over a run;</li>
 *   <li>per-minute aggregates of each series ({@code --retain metric-minutes}), for charts;</li>
 *   <li>totals of each series since the start, one per series, for counts such as
 *       {@code ExpiredByPunctual}.</li>
 * </ul>
 * Thread-safe: the handler's batch threads add at once.
 */
public final class RetainedMetrics implements MetricSink {

    /** The aggregates of every series in one minute. */
    public record Minute(Instant start, Map<MetricSeries, MetricAggregate> series) {
    }

    /** A point as it was flushed, with the instant it was flushed at. */
    public record Point(RecordedMetrics.Point point, Instant at) {
    }

    private final Clock clock;
    private final List<RecordedMetrics.Point> pending = new ArrayList<>();
    private final RetainedLog<Point> points;
    private final RetainedLog<Minute> minutes;
    private final Map<MetricSeries, MetricAggregate> totals = new HashMap<>();
    private Minute current;

    /** A sink on {@code clock} keeping {@code points} one by one and {@code minutes} of aggregates. */
    public RetainedMetrics(Clock clock, Retention points, Retention minutes) {
        this.clock = clock;
        this.points = new RetainedLog<>(points);
        this.minutes = new RetainedLog<>(minutes);
    }

    @Override
    public synchronized void add(String name, double value, Unit unit, Map<String, String> dimensions) {
        pending.add(new RecordedMetrics.Point(name, value, unit, Map.copyOf(dimensions)));
    }

    @Override
    public synchronized void flush() {
        Instant now = clock.instant();
        Instant minute = now.truncatedTo(ChronoUnit.MINUTES);
        if (current == null || !current.start().equals(minute)) {
            current = new Minute(minute, new HashMap<>());
            minutes.add(current, minute);
        }
        for (RecordedMetrics.Point point : pending) {
            MetricSeries series = new MetricSeries(point.name(), point.dimensions());
            current.series().merge(series, MetricAggregate.NONE.plus(point.value()), (a, b) -> a.plus(point.value()));
            totals.merge(series, MetricAggregate.NONE.plus(point.value()), (a, b) -> a.plus(point.value()));
            points.add(new Point(point, now), now);
        }
        pending.clear();
    }

    /** The points kept one by one, oldest first. */
    public synchronized List<RecordedMetrics.Point> points() {
        points.trim(clock.instant());
        List<RecordedMetrics.Point> kept = new ArrayList<>(points.size());
        points.oldestFirst().forEach(p -> kept.add(p.point()));
        return kept;
    }

    /** How many points were flushed but are no longer kept one by one. */
    public synchronized long pointsForgotten() {
        points.trim(clock.instant());
        return points.forgotten();
    }

    /** The minutes kept, oldest first, each with a copy of its aggregates. */
    public synchronized List<Minute> minutes() {
        minutes.trim(clock.instant());
        List<Minute> copies = new ArrayList<>(minutes.size());
        minutes.oldestFirst().forEach(m -> copies.add(new Minute(m.start(), Map.copyOf(m.series()))));
        return copies;
    }

    /** Every series' aggregate since the sink was made. */
    public synchronized Map<MetricSeries, MetricAggregate> totals() {
        return Map.copyOf(totals);
    }
}
