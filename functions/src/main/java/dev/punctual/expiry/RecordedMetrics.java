package dev.punctual.expiry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A {@link MetricSink} that keeps every flushed data point in memory: the local runtime's sink, so
 * {@code demo} and {@code bench} report the very figures the function publishes in AWS, and the tests'.
 */
public final class RecordedMetrics implements MetricSink {

    /** One data point as the handler emitted it. */
    public record Point(String name, double value, Unit unit, Map<String, String> dimensions) {
    }

    private final List<Point> pending = new ArrayList<>();
    private final List<Point> flushed = new ArrayList<>();

    @Override
    public synchronized void add(String name, double value, Unit unit, Map<String, String> dimensions) {
        pending.add(new Point(name, value, unit, Map.copyOf(dimensions)));
    }

    @Override
    public synchronized void flush() {
        flushed.addAll(pending);
        pending.clear();
    }

    /** Every flushed point, in the order added. */
    public synchronized List<Point> points() {
        return List.copyOf(flushed);
    }

    /** The flushed points of metric {@code name}. */
    public synchronized List<Point> named(String name) {
        List<Point> named = new ArrayList<>();
        for (Point point : flushed) {
            if (point.name().equals(name)) {
                named.add(point);
            }
        }
        return named;
    }

    /** The sum of the flushed values of metric {@code name} (a count's total). */
    public synchronized double sum(String name) {
        return named(name).stream().mapToDouble(Point::value).sum();
    }
}
