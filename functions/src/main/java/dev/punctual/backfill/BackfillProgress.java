package dev.punctual.backfill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Where each Scan segment stands, kept in a small JSON file rewritten (atomically) after every
 * page, so an interrupted backfill continues where it stopped:
 * {@code {"table":"orders","totalSegments":4,"segments":[{"segment":0,"done":false,
 * "lastEvaluatedKey":{"id":{"S":"a"}}},...]}}. Without a file, progress lives in memory only.
 */
final class BackfillProgress {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final String table;
    private final int totalSegments;
    private final boolean[] done;
    private final Map<Integer, Map<String, AttributeValue>> lastKeys = new LinkedHashMap<>();

    private BackfillProgress(Path file, String table, int totalSegments) {
        this.file = file;
        this.table = table;
        this.totalSegments = totalSegments;
        this.done = new boolean[totalSegments];
    }

    /**
     * The progress in {@code file} if it exists (it must be for the same table and segment count),
     * else a fresh start; {@code file} may be null for no persistence.
     */
    static BackfillProgress open(Path file, String table, int totalSegments) {
        BackfillProgress progress = new BackfillProgress(file, table, totalSegments);
        if (file == null || !Files.exists(file)) {
            return progress;
        }
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read backfill progress " + file + "; delete it to start over", e);
        }
        if (!table.equals(root.path("table").asText()) || root.path("totalSegments").asInt() != totalSegments) {
            throw new IllegalArgumentException("Backfill progress " + file + " is for table '" + root.path("table").asText()
                    + "' with " + root.path("totalSegments").asInt() + " segments, not '" + table + "' with " + totalSegments
                    + "; use the same options, or delete the file to start over");
        }
        for (JsonNode segment : root.path("segments")) {
            int index = segment.path("segment").asInt();
            progress.done[index] = segment.path("done").asBoolean();
            if (segment.hasNonNull("lastEvaluatedKey")) {
                progress.lastKeys.put(index, fromJson(segment.path("lastEvaluatedKey")));
            }
        }
        return progress;
    }

    synchronized boolean isDone(int segment) {
        return done[segment];
    }

    /** Where the segment's scan resumes, {@code null} at its start. */
    synchronized Map<String, AttributeValue> resumeKey(int segment) {
        return lastKeys.get(segment);
    }

    /** Records a processed page: the scan of {@code segment} continues after {@code lastKey}, or is done when null. */
    synchronized void pageDone(int segment, Map<String, AttributeValue> lastKey) {
        if (lastKey == null) {
            done[segment] = true;
            lastKeys.remove(segment);
        } else {
            lastKeys.put(segment, Map.copyOf(lastKey));
        }
        save();
    }

    synchronized boolean allDone() {
        for (boolean segmentDone : done) {
            if (!segmentDone) {
                return false;
            }
        }
        return true;
    }

    private void save() {
        if (file == null) {
            return;
        }
        ObjectNode root = JSON.createObjectNode();
        root.put("table", table);
        root.put("totalSegments", totalSegments);
        ArrayNode segments = root.putArray("segments");
        for (int segment = 0; segment < totalSegments; segment++) {
            ObjectNode node = segments.addObject();
            node.put("segment", segment);
            node.put("done", done[segment]);
            Map<String, AttributeValue> key = lastKeys.get(segment);
            if (key != null) {
                node.set("lastEvaluatedKey", toJson(key));
            }
        }
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path temporary = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
            JSON.writerWithDefaultPrettyPrinter().writeValue(temporary.toFile(), root);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not save backfill progress to " + file, e);
        }
    }

    private static ObjectNode toJson(Map<String, AttributeValue> key) {
        ObjectNode json = JSON.createObjectNode();
        key.forEach((name, value) -> {
            ObjectNode typed = json.putObject(name);
            if (value.s() != null) {
                typed.put("S", value.s());
            } else if (value.n() != null) {
                typed.put("N", value.n());
            } else if (value.b() != null) {
                typed.put("B", Base64.getEncoder().encodeToString(value.b().asByteArray()));
            } else {
                throw new IllegalStateException("key attribute " + name + " is not S, N or B");
            }
        });
        return json;
    }

    private static Map<String, AttributeValue> fromJson(JsonNode json) {
        Map<String, AttributeValue> key = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : json.properties()) {
            JsonNode typed = field.getValue();
            AttributeValue value;
            if (typed.has("S")) {
                value = AttributeValue.fromS(typed.get("S").asText());
            } else if (typed.has("N")) {
                value = AttributeValue.fromN(typed.get("N").asText());
            } else if (typed.has("B")) {
                value = AttributeValue.fromB(SdkBytes.fromByteArray(Base64.getDecoder().decode(typed.get("B").asText())));
            } else {
                throw new IllegalArgumentException("backfill progress key attribute " + field.getKey() + " is not S, N or B");
            }
            key.put(field.getKey(), value);
        }
        return key;
    }
}
