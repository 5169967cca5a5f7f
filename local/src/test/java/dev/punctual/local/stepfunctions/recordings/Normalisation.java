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
 * date-time reads {@code date}, any other value of a key that names a timestamp ({@code TimestampValue})
 * reads {@code timestamp}, UUIDs read {@code <uuid:n>} in order of appearance, a DynamoDB request id
 * reads {@code <request_id>}, an SDK's HTTP {@code Date} headers read {@code date}, the JSON text a {@code cause} quotes ({@code ... in the input '{...}'}) reads
 * {@code <json-input:n>} wherever it appears, and keys and texts the recording test replaced read as it
 * replaced them.
 *
 * <p>The same rules as the snapshot library's and LocalStack's Step Functions transformers
 * ({@code SNAPSHOT_BASIC_TRANSFORMER}, {@code stepfunctions_api()}), written from what the recordings show and
 * what those rules say, applied in their order: parsing first, then the key rules, then the text ones.
 */
final class Normalisation {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern UUID = Pattern.compile(
            "[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}");
    /**
     * An ISO-8601 date-time with a valid date and time, as the snapshot library's {@code PATTERN_ISO8601} reads
     * one ({@code 2016-13-05T21:29:29Z}, a thirteenth month, is none).
     */
    private static final Pattern DATE_TIME = Pattern.compile("(?:[1-9]\\d{3}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\\d|2[0-8])"
            + "|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)|(?:[1-9]\\d(?:0[48]|[2468][048]|[13579][26])"
            + "|(?:[2468][048]|[13579][26])00)-02-29)T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?"
            + "(?:Z|[+-][01]\\d:?([0-5]\\d)?)");
    private static final Pattern REQUEST_ID = Pattern.compile("Request ID: [a-zA-Z0-9-]+");
    /** A key whose value the snapshot library reads as a timestamp, unless it is an ISO-8601 date-time. */
    private static final Pattern TIMESTAMP_KEY = Pattern.compile("(?i).*timestamp.*");
    /**
     * The JSON text a {@code cause} quotes last, between single quotes, on one line (Python's
     * {@code re.match(r".*'({.*})'", cause)}, LocalStack's {@code _transform_stepfunctions_cause_details}).
     */
    private static final Pattern QUOTED_JSON = Pattern.compile(".*'(\\{.*})'");

    /** Ours to theirs, longest first so a name that holds another is replaced whole. */
    private final Map<String, String> placeholders = new LinkedHashMap<>();
    private final Map<String, String> keyValues;
    /** Texts the recording test replaced wherever they appear (its regex transformers), ours to theirs, first of all. */
    private final Map<String, String> texts;
    private final Map<String, String> uuids = new HashMap<>();
    /** The JSON texts causes quote, to their {@code <json-input:n>}, found before anything else is replaced. */
    private final Map<String, String> jsonInputs = new LinkedHashMap<>();

    Normalisation(Map<String, String> placeholders, Map<String, String> keyValues, Map<String, String> texts) {
        placeholders.entrySet().stream()
                .sorted(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed())
                .forEach(e -> this.placeholders.put(e.getKey(), e.getValue()));
        this.keyValues = Map.copyOf(keyValues);
        this.texts = Map.copyOf(texts);
    }

    /** Their placeholders back to our names: how a recorded input becomes one we can send. */
    String concrete(String recorded) {
        String out = recorded;
        List<Map.Entry<String, String>> byPlaceholder = new ArrayList<>(placeholders.entrySet());
        byPlaceholder.addAll(texts.entrySet());
        byPlaceholder.sort(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getValue().length()).reversed());
        for (Map.Entry<String, String> e : byPlaceholder) {
            out = out.replace(e.getValue(), e.getKey());
        }
        return out;
    }

    JsonNode normalise(JsonNode node) {
        findJsonInputs(null, node);
        return normalise(null, node, false);
    }

    /**
     * Numbers, in document order, the JSON texts that {@code cause} fields quote; like the snapshot
     * library's reference replacements, each is then replaced wherever it appears.
     */
    private void findJsonInputs(String key, JsonNode node) {
        if (node.isObject()) {
            node.fields().forEachRemaining(field -> findJsonInputs(field.getKey(), field.getValue()));
        } else if (node.isArray()) {
            node.forEach(element -> findJsonInputs(null, element));
        } else if ("cause".equals(key) && node.isTextual() && !parsesAsObject(node.textValue())) {
            Matcher quoted = QUOTED_JSON.matcher(node.textValue());
            if (quoted.lookingAt() && parses(quoted.group(1))) {
                jsonInputs.computeIfAbsent(quoted.group(1), json -> "<json-input:" + (jsonInputs.size() + 1) + ">");
            }
        }
    }

    private static boolean parses(String json) {
        try {
            MAPPER.readTree(json);
            return true;
        } catch (IOException notJson) {
            return false;
        }
    }

    private static boolean parsesAsObject(String text) {
        if (!text.strip().startsWith("{")) {
            return false;
        }
        try {
            JsonNode parsed = MAPPER.readTree(text);
            return parsed != null && parsed.isObject();
        } catch (IOException notJson) {
            return false;
        }
    }

    /** {@code inPayload}: inside text already parsed, whose own text fields stay text, as recorded. */
    private JsonNode normalise(String key, JsonNode node, boolean inPayload) {
        if (key != null && keyValues.containsKey(key) && node.isValueNode() && !node.isNull()) {
            return TextNode.valueOf(keyValues.get(key));
        }
        if (key != null && TIMESTAMP_KEY.matcher(key).matches() && !isoDateTime(node)) {
            return TextNode.valueOf("timestamp");
        }
        if ("SdkHttpMetadata".equals(key) && node.isObject()) {
            return normalise(null, httpDates(node.deepCopy()), inPayload);
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

    /**
     * The {@code Date} headers of an SDK's HTTP metadata as {@code date}, whole (a list of one too), as
     * LocalStack's Step Functions transformer {@code $..SdkHttpMetadata..Date} replaces them.
     */
    private static JsonNode httpDates(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                field.setValue("Date".equals(field.getKey()) ? TextNode.valueOf("date") : httpDates(field.getValue()));
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, httpDates(array.get(i)));
            }
        }
        return node;
    }

    /** Whether the value reads as an ISO-8601 date-time from its start, as the snapshot library's pattern does. */
    private static boolean isoDateTime(JsonNode node) {
        return node.isTextual() && DATE_TIME.matcher(node.textValue()).lookingAt();
    }

    private JsonNode text(String key, String raw, boolean inPayload) {
        if (!inPayload && raw.strip().startsWith("{")) {
            try {
                JsonNode parsed = MAPPER.readTree(raw);
                if (parsed != null && parsed.isObject()) {
                    return normalise(key, parsed, true);
                }
            } catch (IOException notJson) {
                // text that only looks like JSON stays text
            }
        }
        // What stays text: the snapshot library's replacements of whole texts, on the text as AWS wrote it.
        String value = raw;
        for (Map.Entry<String, String> e : jsonInputs.entrySet()) {
            value = value.replace(e.getKey(), e.getValue());
        }
        for (Map.Entry<String, String> e : texts.entrySet()) {
            value = value.replace(e.getKey(), e.getValue());
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
