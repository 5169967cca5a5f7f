package dev.punctual.local.stepfunctions.recordings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Brings our answers to the form LocalStack's snapshots store AWS's in, so the two compare as equals:
 * the names we chose become the recording's placeholders ({@code <ArnPart_0idx>}, {@code <test-table>},
 * {@code <region>}, ...), a field whose text is a JSON object is parsed (an array stays text, and so does
 * text inside what was parsed, as recorded), a value that is a whole ISO-8601
 * date-time reads {@code date}, UUIDs read {@code <uuid:n>} in order of appearance, a DynamoDB request id
 * reads {@code <request_id>}, and keys the recording test replaced read as it replaced them.
 *
 * <p>The same rules as the snapshot library's, written from what its recordings show, not from its code.
 */
final class Normalisation {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern UUID = Pattern.compile(
            "[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}");
    private static final Pattern DATE_TIME = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}(:?\\d{2})?)");
    private static final Pattern REQUEST_ID = Pattern.compile("Request ID: [a-zA-Z0-9-]+");

    /** Ours to theirs, longest first so a name that holds another is replaced whole. */
    private final Map<String, String> placeholders = new LinkedHashMap<>();
    private final Map<String, String> keyValues;
    private final Map<String, String> uuids = new HashMap<>();

    Normalisation(Map<String, String> placeholders, Map<String, String> keyValues) {
        placeholders.entrySet().stream()
                .sorted(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed())
                .forEach(e -> this.placeholders.put(e.getKey(), e.getValue()));
        this.keyValues = Map.copyOf(keyValues);
    }

    /** Their placeholders back to our names: how a recorded input becomes one we can send. */
    String concrete(String recorded) {
        String out = recorded;
        List<Map.Entry<String, String>> byPlaceholder = new ArrayList<>(placeholders.entrySet());
        byPlaceholder.sort(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getValue().length()).reversed());
        for (Map.Entry<String, String> e : byPlaceholder) {
            out = out.replace(e.getValue(), e.getKey());
        }
        return out;
    }

    JsonNode normalise(JsonNode node) {
        return normalise(null, node, false);
    }

    /** {@code inPayload}: inside text already parsed, whose own text fields stay text, as recorded. */
    private JsonNode normalise(String key, JsonNode node, boolean inPayload) {
        if (key != null && keyValues.containsKey(key) && node.isValueNode() && !node.isNull()) {
            return TextNode.valueOf(keyValues.get(key));
        }
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                out.set(field.getKey(), normalise(field.getKey(), field.getValue(), inPayload));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            node.forEach(element -> out.add(normalise(null, element, inPayload)));
            return out;
        }
        if (node.isTextual()) {
            return text(key, node.textValue(), inPayload);
        }
        return node;
    }

    private JsonNode text(String key, String value, boolean inPayload) {
        String trimmed = value.strip();
        if (!inPayload && trimmed.startsWith("{")) {
            try {
                JsonNode parsed = MAPPER.readTree(value);
                if (parsed != null && parsed.isObject()) {
                    return normalise(key, parsed, true);
                }
            } catch (IOException notJson) {
                // text that only looks like JSON stays text
            }
        }
        if (DATE_TIME.matcher(value).matches()) {
            return TextNode.valueOf("date");
        }
        String out = value;
        for (Map.Entry<String, String> e : placeholders.entrySet()) {
            out = out.replace(e.getKey(), e.getValue());
        }
        out = REQUEST_ID.matcher(out).replaceAll("Request ID: <request_id>");
        Matcher uuid = UUID.matcher(out);
        StringBuilder numbered = new StringBuilder();
        while (uuid.find()) {
            String token = uuids.computeIfAbsent(uuid.group(), u -> "<uuid:" + (uuids.size() + 1) + ">");
            uuid.appendReplacement(numbered, Matcher.quoteReplacement(token));
        }
        uuid.appendTail(numbered);
        return TextNode.valueOf(numbered.toString());
    }
}
