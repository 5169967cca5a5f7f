package dev.punctual.local.stepfunctions.recordings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A directory of executions AWS recorded, in LocalStack's snapshot format, and how to replay each:
 * {@code manifest.json} (one entry a case), {@code snapshots/<stem>.snapshot.json} (as LocalStack keeps
 * them) and {@code templates/<path>.json} (the state machines, as JSON). Adding a case is adding data:
 * its entry, its template, its snapshot.
 *
 * <p>An entry: {@code snapshot} (the stem, e.g. {@code scenarios/test_base_scenarios}), {@code test} (the
 * snapshot key after the file, e.g. {@code TestBaseScenarios::test_parallel_state[PARALLEL_STATE]}),
 * {@code template}; optionally {@code type} ({@code EXPRESS}), {@code replace} (text replaced in the
 * template, as the recording test did), {@code replaceWithInput} (text replaced, per execution, by the JSON
 * of the value at a path of that execution's input), {@code inputs} (for a recording whose inputs were
 * normalised beyond use: the inputs the recording test sent, in order), {@code texts} (text the recording
 * test replaced wherever it appeared, by a regex transformer of its own, ours to its placeholder: where the
 * test sent a value it computed, {@code now} say, the replay sends ours, and the recorded input's placeholder
 * becomes it), {@code keyValues} (keys whose values the recording test replaced, to what), {@code tables} (DynamoDB tables,
 * by the placeholder the recording uses for their names), {@code children} (state machines a
 * {@code .sync} Task starts, by the placeholder of their ARN), and {@code difference} (why this case is
 * known not to match AWS; the replay checks it still does not).
 */
final class RecordingLibrary {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path root;
    private final Map<String, JsonNode> snapshots = new HashMap<>();

    RecordingLibrary(Path root) {
        this.root = root;
    }

    Path root() {
        return root;
    }

    List<RecordedCase> cases() {
        JsonNode manifest = read(root.resolve("manifest.json"));
        List<RecordedCase> cases = new ArrayList<>();
        for (JsonNode entry : manifest.path("cases")) {
            String stem = entry.path("snapshot").asText();
            String test = entry.path("test").asText();
            JsonNode snapshot = snapshots.computeIfAbsent(stem,
                    s -> read(root.resolve("snapshots").resolve(s + ".snapshot.json")));
            JsonNode recorded = null;
            for (Iterator<Map.Entry<String, JsonNode>> it = snapshot.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> key = it.next();
                if (key.getKey().endsWith("::" + test)) {
                    recorded = key.getValue().path("recorded-content");
                }
            }
            if (recorded == null) {
                throw new IllegalStateException(root + ": no recording " + test + " in " + stem + ".snapshot.json");
            }
            String template = text(root.resolve("templates").resolve(entry.path("template").asText()));
            Map<String, String> children = new HashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = entry.path("children").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> child = it.next();
                children.put(child.getKey(), text(root.resolve("templates").resolve(child.getValue().asText())));
            }
            cases.add(new RecordedCase(stem, test, entry, recorded, template, Map.copyOf(children)));
        }
        return cases;
    }

    private static JsonNode read(Path path) {
        try {
            return MAPPER.readTree(path.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    private static String text(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + path + ": " + e.getMessage(), e);
        }
    }
}
