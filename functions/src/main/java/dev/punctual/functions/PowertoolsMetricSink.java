package dev.punctual.functions;

import dev.punctual.expiry.MetricSink;
import dev.punctual.statemachine.ExpiryMetricNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The Lambda function's {@link MetricSink}: Powertools metrics in embedded metric format, one log line
 * per dimension set and batch, which CloudWatch Logs turns into metrics (no API call, no permission).
 *
 * <p>Each dimension set is flushed as its own context, without Powertools' default {@code Service}
 * dimension: the construct's dashboard asks for exactly {@link ExpiryMetricNames#DIMENSION_TABLE} (and
 * {@link ExpiryMetricNames#DIMENSION_REASON}), and CloudWatch matches dimension sets exactly.
 */
final class PowertoolsMetricSink implements MetricSink {

    private final Metrics metrics;
    private final Map<Map<String, String>, List<Point>> pending = new LinkedHashMap<>();

    private record Point(String name, double value, Unit unit) {
    }

    PowertoolsMetricSink() {
        this(MetricsBuilder.builder().withNamespace(ExpiryMetricNames.NAMESPACE).withRaiseOnEmptyMetrics(false).build());
    }

    PowertoolsMetricSink(Metrics metrics) {
        this.metrics = metrics;
        metrics.clearDefaultDimensions();
    }

    @Override
    public synchronized void add(String name, double value, Unit unit, Map<String, String> dimensions) {
        pending.computeIfAbsent(Map.copyOf(dimensions), key -> new ArrayList<>()).add(new Point(name, value, unit));
    }

    @Override
    public synchronized void flush() {
        pending.forEach((dimensions, points) -> metrics.flushMetrics(context -> {
            context.setNamespace(ExpiryMetricNames.NAMESPACE);
            context.clearDefaultDimensions();
            context.addDimension(DimensionSet.of(dimensions));
            points.forEach(point -> context.addMetric(point.name(), point.value(), unit(point.unit())));
        }));
        pending.clear();
    }

    private static MetricUnit unit(Unit unit) {
        return switch (unit) {
            case MILLISECONDS -> MetricUnit.MILLISECONDS;
            case COUNT -> MetricUnit.COUNT;
        };
    }
}
