package dev.punctual.local.metrics;

/**
 * What CloudWatch keeps of a metric over a period once its raw points are gone: how many points,
 * their sum, least and greatest. Immutable; {@link #plus} makes the next one.
 */
public record MetricAggregate(long count, double sum, double min, double max) {

    /** No points yet. */
    public static final MetricAggregate NONE = new MetricAggregate(0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);

    /** This aggregate with one more point of {@code value}. */
    public MetricAggregate plus(double value) {
        return new MetricAggregate(count + 1, sum + value, Math.min(min, value), Math.max(max, value));
    }

    /** The mean, or 0 without points. */
    public double average() {
        return count == 0 ? 0 : sum / count;
    }
}
