package dev.punctual.local.metrics;

import java.util.Map;

/** One metric as CloudWatch tells them apart: its name and its exact dimensions. */
public record MetricSeries(String name, Map<String, String> dimensions) {

    public MetricSeries {
        dimensions = Map.copyOf(dimensions);
    }

    /** The value of dimension {@code dimension}, or {@code null}. */
    public String dimension(String dimension) {
        return dimensions.get(dimension);
    }
}
