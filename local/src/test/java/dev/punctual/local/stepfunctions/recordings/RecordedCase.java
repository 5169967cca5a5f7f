package dev.punctual.local.stepfunctions.recordings;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One recorded case: its manifest entry, what AWS answered ({@code recorded-content}), its template and
 * the templates of the children its {@code .sync} Tasks start.
 */
record RecordedCase(String snapshot, String test, JsonNode entry, JsonNode recorded, String template,
        Map<String, String> children) {

    String id() {
        return snapshot + "::" + test;
    }

    /** Why this case is known to differ from AWS, or {@code null}. */
    String difference() {
        JsonNode difference = entry.get("difference");
        return difference == null ? null : difference.asText();
    }
}
