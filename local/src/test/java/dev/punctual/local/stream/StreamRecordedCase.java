package dev.punctual.local.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

/**
 * One case of {@code aws-recordings/streams/manifest.json}: what LocalStack's Python test did against AWS
 * (the table, the event source mapping's parameters, what the function answered, the items written) and
 * where in the snapshot AWS's answer to it is. Adding a case is adding an entry.
 *
 * <p>An entry:
 * <ul>
 *   <li>{@code test}: the snapshot key after the file, e.g.
 *       {@code TestDynamoDBEventSourceMapping::test_dynamodb_event_filter[numeric_filter]};</li>
 *   <li>{@code table}: {@code partitionKey} (a string key, as the test's fixture creates it) and
 *       {@code streamViewType};</li>
 *   <li>{@code mapping}: the {@code CreateEventSourceMapping} parameters the test passed, named as AWS names
 *       them ({@code BatchSize}, {@code MaximumBatchingWindowInSeconds}, {@code MaximumRetryAttempts},
 *       {@code MaximumRecordAgeInSeconds}, {@code BisectBatchOnFunctionError}, {@code StartingPosition},
 *       {@code FunctionResponseTypes}, {@code FilterCriteria}, {@code DestinationConfig}, whose
 *       {@code OnFailure.Destination} names the kind the test used: {@code sqs}, {@code sns} or {@code s3});
 *       an absent one takes AWS's default;</li>
 *   <li>{@code function}: what the test's function answered: {@code {"echo": true}} (returns its event, read
 *       as success), {@code {"returns": ...}} (this JSON), {@code {"raises": "..."}} (an unhandled error), or
 *       {@code {"reportsFailureWhere": {"attr": {"BOOL": true}}}} (reports as failed the records whose new
 *       image holds that attribute value);</li>
 *   <li>{@code steps}: in order, each with {@code put} (items in DynamoDB JSON, binary as base64), an
 *       optional {@code pauseMillis} between puts, and {@code compare}: each a JSON pointer into the
 *       recorded content ({@code recorded}) and what of ours it is compared with ({@code ours}:
 *       {@code invocations}, the events the function was given so far; {@code recordsSortedByPartitionKey},
 *       their records in one list, sorted as the test sorted them; {@code onFailureMessage}, the one
 *       dead letter's message; {@code onFailureS3Object}, that message with the records as its
 *       {@code payload}, as an S3 destination receives it);</li>
 *   <li>or, instead of {@code steps}, {@code refused}: a pointer to the error AWS answered when the mapping
 *       was created (our poller must refuse to start);</li>
 *   <li>{@code note} (free text) and {@code difference}: why this case is known not to match AWS.</li>
 * </ul>
 * Anything else in an entry is refused with its name, as is an entry the replay could not carry out.
 */
record StreamRecordedCase(String test, String partitionKey, StreamViewType streamViewType, Mapping mapping,
                          JsonNode function, List<Step> steps, String refused, String difference, JsonNode recorded) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> ENTRY_KEYS = Set.of("test", "table", "mapping", "function", "steps", "refused",
            "note", "difference");
    private static final Set<String> MAPPING_KEYS = Set.of("BatchSize", "MaximumBatchingWindowInSeconds",
            "MaximumRetryAttempts", "MaximumRecordAgeInSeconds", "BisectBatchOnFunctionError", "StartingPosition",
            "FunctionResponseTypes", "FilterCriteria", "DestinationConfig");
    private static final Set<String> OURS = Set.of("invocations", "recordsSortedByPartitionKey", "onFailureMessage",
            "onFailureS3Object");

    /** The event source mapping's parameters: ours, from AWS's, with AWS's defaults for those not given. */
    record Mapping(int batchSize, int maximumBatchingWindowInSeconds, int maximumRetryAttempts,
                   long maximumRecordAgeInSeconds, boolean bisectBatchOnFunctionError, boolean reportBatchItemFailures,
                   List<String> filterPatterns, String onFailureDestination) {

        MappingSettings.Builder settings() {
            return MappingSettings.builder()
                    .batchSize(batchSize)
                    .maximumBatchingWindowInSeconds(maximumBatchingWindowInSeconds)
                    .maximumRetryAttempts(maximumRetryAttempts)
                    .maximumRecordAgeInSeconds(maximumRecordAgeInSeconds)
                    .bisectBatchOnFunctionError(bisectBatchOnFunctionError);
        }
    }

    /** Items written, then what is compared once the poller has handled them. */
    record Step(List<Map<String, AttributeValue>> puts, Duration pause, List<Comparison> comparisons) {
    }

    /** A pointer into the recorded content, and what of ours it is compared with. */
    record Comparison(String recorded, String ours) {
    }

    String id() {
        return test;
    }

    /** Every case of the manifest at {@code manifest}, with its recording from the snapshot beside it. */
    static List<StreamRecordedCase> load(Path manifest) {
        JsonNode root = read(manifest);
        Path snapshotFile = manifest.resolveSibling(require(root, "snapshot", manifest.toString()).asText());
        JsonNode snapshot = read(snapshotFile);
        List<StreamRecordedCase> cases = new ArrayList<>();
        for (JsonNode entry : require(root, "cases", manifest.toString())) {
            String test = require(entry, "test", "a case of " + manifest).asText();
            try {
                cases.add(parse(entry, recording(snapshot, test, snapshotFile)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(manifest + ", case " + test + ": " + e.getMessage(), e);
            }
        }
        return cases;
    }

    private static JsonNode recording(JsonNode snapshot, String test, Path file) {
        for (Iterator<Map.Entry<String, JsonNode>> it = snapshot.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> key = it.next();
            if (key.getKey().endsWith("::" + test)) {
                return key.getValue().path("recorded-content");
            }
        }
        throw new IllegalArgumentException("no recording ending in ::" + test + " in " + file);
    }

    private static StreamRecordedCase parse(JsonNode entry, JsonNode recorded) {
        onlyKeys(entry, ENTRY_KEYS, "the entry");
        JsonNode table = require(entry, "table", "the entry");
        onlyKeys(table, Set.of("partitionKey", "streamViewType"), "table");
        StreamViewType viewType = StreamViewType.fromValue(require(table, "streamViewType", "table").asText());
        if (viewType == StreamViewType.UNKNOWN_TO_SDK_VERSION) {
            throw new IllegalArgumentException("table.streamViewType " + table.get("streamViewType")
                    + " is none of KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES");
        }
        JsonNode function = require(entry, "function", "the entry");
        checkFunction(function);
        Mapping mapping = mapping(require(entry, "mapping", "the entry"));
        if (!mapping.reportBatchItemFailures() && (function.has("returns") || function.has("reportsFailureWhere"))) {
            throw new IllegalArgumentException("the local mapping always reads the function's batchItemFailures"
                    + " (ReportBatchItemFailures); a case whose function answers with them needs"
                    + " FunctionResponseTypes [\"ReportBatchItemFailures\"]");
        }
        String refused = entry.hasNonNull("refused") ? pointer(entry.get("refused").asText(), recorded, "refused") : null;
        List<Step> steps = new ArrayList<>();
        for (JsonNode step : entry.path("steps")) {
            steps.add(step(step, recorded));
        }
        if ((refused == null) == steps.isEmpty()) {
            throw new IllegalArgumentException("an entry has either steps or refused, not both or neither");
        }
        return new StreamRecordedCase(entry.get("test").asText(), require(table, "partitionKey", "table").asText(),
                viewType, mapping, function, List.copyOf(steps), refused,
                entry.hasNonNull("difference") ? entry.get("difference").asText() : null, recorded);
    }

    private static Mapping mapping(JsonNode mapping) {
        onlyKeys(mapping, MAPPING_KEYS, "mapping");
        String start = mapping.path("StartingPosition").asText("TRIM_HORIZON");
        if (!start.equals("TRIM_HORIZON")) {
            throw new IllegalArgumentException("StartingPosition " + start + ": the local mapping starts at TRIM_HORIZON only");
        }
        boolean report = false;
        for (JsonNode type : mapping.path("FunctionResponseTypes")) {
            if (!type.asText().equals("ReportBatchItemFailures")) {
                throw new IllegalArgumentException("FunctionResponseTypes holds " + type + "; only ReportBatchItemFailures exists");
            }
            report = true;
        }
        List<String> patterns = new ArrayList<>();
        JsonNode criteria = mapping.path("FilterCriteria");
        if (!criteria.isMissingNode()) {
            onlyKeys(criteria, Set.of("Filters"), "mapping.FilterCriteria");
            for (JsonNode filter : criteria.path("Filters")) {
                onlyKeys(filter, Set.of("Pattern"), "a filter");
                if (!filter.path("Pattern").isTextual()) {
                    throw new IllegalArgumentException("a filter's Pattern is the text AWS is sent, got " + filter.get("Pattern"));
                }
                patterns.add(filter.get("Pattern").textValue());
            }
        }
        String destination = null;
        JsonNode config = mapping.path("DestinationConfig");
        if (!config.isMissingNode()) {
            destination = config.path("OnFailure").path("Destination").asText();
            if (!Set.of("sqs", "sns", "s3").contains(destination)) {
                throw new IllegalArgumentException("DestinationConfig.OnFailure.Destination names the kind the test used,"
                        + " sqs, sns or s3; got " + config);
            }
        }
        return new Mapping(intOf(mapping, "BatchSize", 100), intOf(mapping, "MaximumBatchingWindowInSeconds", 0),
                intOf(mapping, "MaximumRetryAttempts", -1), intOf(mapping, "MaximumRecordAgeInSeconds", -1),
                mapping.path("BisectBatchOnFunctionError").asBoolean(false), report, List.copyOf(patterns), destination);
    }

    private static void checkFunction(JsonNode function) {
        if (!function.isObject() || function.size() != 1) {
            throw new IllegalArgumentException("function is one of {\"echo\": true}, {\"returns\": ...},"
                    + " {\"raises\": \"...\"}, {\"reportsFailureWhere\": {...}}; got " + function);
        }
        String kind = function.fieldNames().next();
        if (!Set.of("echo", "returns", "raises", "reportsFailureWhere").contains(kind)) {
            throw new IllegalArgumentException("function " + kind + " is not echo, returns, raises or reportsFailureWhere");
        }
        if (kind.equals("returns")) {
            JsonNode response = function.get("returns");
            if (response.isArray() && !response.isEmpty() || !response.isArray() && !response.isObject() && !response.isNull()) {
                throw new IllegalArgumentException("function returns " + response + ": only null, an empty list or an"
                        + " object can be replayed by a Java handler");
            }
        }
    }

    private static Step step(JsonNode step, JsonNode recorded) {
        onlyKeys(step, Set.of("put", "pauseMillis", "compare"), "a step");
        List<Map<String, AttributeValue>> puts = new ArrayList<>();
        for (JsonNode item : require(step, "put", "a step")) {
            puts.add(item(item));
        }
        List<Comparison> comparisons = new ArrayList<>();
        for (JsonNode comparison : require(step, "compare", "a step")) {
            onlyKeys(comparison, Set.of("recorded", "ours"), "a comparison");
            String ours = require(comparison, "ours", "a comparison").asText();
            if (!OURS.contains(ours)) {
                throw new IllegalArgumentException("compare.ours '" + ours + "' is none of " + OURS);
            }
            comparisons.add(new Comparison(pointer(require(comparison, "recorded", "a comparison").asText(), recorded,
                    "compare.recorded"), ours));
        }
        return new Step(List.copyOf(puts), Duration.ofMillis(step.path("pauseMillis").asLong(0)), List.copyOf(comparisons));
    }

    /** An item in DynamoDB JSON (binary as base64) as the SDK writes it. */
    static Map<String, AttributeValue> item(JsonNode json) {
        if (!json.isObject()) {
            throw new IllegalArgumentException("an item is an object of attributes in DynamoDB JSON, got " + json);
        }
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        json.fields().forEachRemaining(field -> item.put(field.getKey(), value(field.getValue())));
        return item;
    }

    private static AttributeValue value(JsonNode json) {
        if (!json.isObject() || json.size() != 1) {
            throw new IllegalArgumentException("an attribute value is one type and its value, e.g. {\"S\": \"x\"}; got " + json);
        }
        Map.Entry<String, JsonNode> typed = json.fields().next();
        JsonNode value = typed.getValue();
        return switch (typed.getKey()) {
            case "S" -> AttributeValue.fromS(value.textValue());
            case "N" -> AttributeValue.fromN(value.textValue());
            case "B" -> AttributeValue.fromB(SdkBytes.fromByteArray(Base64.getDecoder().decode(value.textValue())));
            case "BOOL" -> AttributeValue.fromBool(value.booleanValue());
            case "NULL" -> AttributeValue.fromNul(true);
            case "SS" -> AttributeValue.fromSs(texts(value));
            case "NS" -> AttributeValue.fromNs(texts(value));
            case "M" -> AttributeValue.fromM(item(value));
            case "L" -> {
                List<AttributeValue> list = new ArrayList<>();
                value.forEach(element -> list.add(value(element)));
                yield AttributeValue.fromL(list);
            }
            default -> throw new IllegalArgumentException("attribute type " + typed.getKey() + " is not replayed: " + json);
        };
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(element -> texts.add(element.textValue()));
        return texts;
    }

    private static String pointer(String pointer, JsonNode recorded, String where) {
        if (!pointer.startsWith("/") || recorded.at(pointer).isMissingNode()) {
            throw new IllegalArgumentException(where + " '" + pointer + "' points at nothing in the recording; it has "
                    + iterable(recorded.fieldNames()));
        }
        return pointer;
    }

    private static List<String> iterable(Iterator<String> names) {
        List<String> list = new ArrayList<>();
        names.forEachRemaining(list::add);
        return list;
    }

    private static int intOf(JsonNode mapping, String name, int absent) {
        JsonNode value = mapping.get(name);
        if (value == null) {
            return absent;
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new IllegalArgumentException("mapping." + name + " is a whole number, got " + value);
        }
        return value.intValue();
    }

    private static JsonNode require(JsonNode node, String name, String where) {
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException(where + " has no '" + name + "'");
        }
        return value;
    }

    private static void onlyKeys(JsonNode node, Set<String> known, String where) {
        if (!node.isObject()) {
            throw new IllegalArgumentException(where + " is an object, got " + node);
        }
        node.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                throw new IllegalArgumentException(where + " has '" + name + "', which the replay does not know;"
                        + " it knows " + new java.util.TreeSet<>(known));
            }
        });
    }

    private static JsonNode read(Path path) {
        try {
            return JSON.readTree(path.toFile());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(path + " is not JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
