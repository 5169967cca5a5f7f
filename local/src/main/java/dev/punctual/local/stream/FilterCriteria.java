package dev.punctual.local.stream;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * An event source mapping's filter criteria: a record is delivered when it matches any pattern; with
 * no patterns every record is. Records that match none are dropped before the function is invoked
 * and still count as processed, as on AWS.
 */
public final class FilterCriteria {

    private static final FilterCriteria NONE = new FilterCriteria(List.of());

    private final List<EventPattern> patterns;

    private FilterCriteria(List<EventPattern> patterns) {
        this.patterns = patterns;
    }

    /** Criteria from pattern JSON strings, e.g. {@code StreamWiring.filterPatterns(...)}. */
    public static FilterCriteria of(List<String> patternJson) {
        if (patternJson.size() > 5) {
            throw new IllegalArgumentException("an event source mapping takes at most 5 filter patterns, got "
                    + patternJson.size());
        }
        return new FilterCriteria(patternJson.stream().map(EventPattern::parse).toList());
    }

    /** Criteria that let every record through. */
    public static FilterCriteria none() {
        return NONE;
    }

    /** Whether {@code record} (Lambda's JSON form) is delivered. */
    public boolean matches(JsonNode record) {
        if (patterns.isEmpty()) {
            return true;
        }
        for (EventPattern pattern : patterns) {
            if (pattern.matches(record)) {
                return true;
            }
        }
        return false;
    }
}
