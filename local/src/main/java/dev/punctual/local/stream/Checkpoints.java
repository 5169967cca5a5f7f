package dev.punctual.local.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Where each shard was read up to: per (stream ARN, shard ID) the sequence number of the last record
 * processed (delivered, filtered out or dead-lettered), and whether the shard is finished (closed and
 * read to its end, so its children may be read). Kept in memory, and with a data directory also in
 * {@value #FILE_NAME}, rewritten atomically (temp file, then rename) on every change so a crash leaves
 * either the old or the new state, never a torn file.
 */
public final class Checkpoints {

    /** File name in the data directory. */
    public static final String FILE_NAME = "stream-checkpoints.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final Map<String, Map<String, Position>> positions = new TreeMap<>();

    private record Position(String sequenceNumber, boolean finished) {
    }

    private Checkpoints(Path file) {
        this.file = file;
    }

    /** Checkpoints that live as long as this process. */
    public static Checkpoints inMemory() {
        return new Checkpoints(null);
    }

    /**
     * Checkpoints persisted in {@code directory}, loaded from there if present. The directory is
     * created if it does not exist yet (the runtime gives the poller a sub-directory of its data
     * directory), so the first checkpoint cannot fail for want of it.
     */
    public static Checkpoints inDirectory(Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the stream checkpoint directory " + directory
                    + "; check the data directory is writable", e);
        }
        Checkpoints checkpoints = new Checkpoints(directory.resolve(FILE_NAME));
        checkpoints.load();
        return checkpoints;
    }

    /** The last processed sequence number of a shard, if any record was processed. */
    public synchronized Optional<String> lastProcessed(String streamArn, String shardId) {
        Position position = position(streamArn, shardId);
        return position == null ? Optional.empty() : Optional.ofNullable(position.sequenceNumber());
    }

    /** Whether a shard is closed and fully processed. */
    public synchronized boolean isFinished(String streamArn, String shardId) {
        Position position = position(streamArn, shardId);
        return position != null && position.finished();
    }

    /** Records that every record of a shard up to {@code sequenceNumber} is processed. */
    public synchronized void save(String streamArn, String shardId, String sequenceNumber) {
        positions.computeIfAbsent(streamArn, arn -> new TreeMap<>()).put(shardId, new Position(sequenceNumber, false));
        persist();
    }

    /** Records that a shard is closed and read to its end. */
    public synchronized void finish(String streamArn, String shardId) {
        Position previous = position(streamArn, shardId);
        positions.computeIfAbsent(streamArn, arn -> new TreeMap<>())
                .put(shardId, new Position(previous == null ? null : previous.sequenceNumber(), true));
        persist();
    }

    private Position position(String streamArn, String shardId) {
        Map<String, Position> shards = positions.get(streamArn);
        return shards == null ? null : shards.get(shardId);
    }

    private void load() {
        if (!Files.exists(file)) {
            return;
        }
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalStateException("stream checkpoint file " + file + " is unreadable (" + e.getMessage()
                    + "); delete it to re-read every stream from its oldest record", e);
        }
        Iterator<Map.Entry<String, JsonNode>> streams = root.path("streams").fields();
        while (streams.hasNext()) {
            Map.Entry<String, JsonNode> stream = streams.next();
            Map<String, Position> shards = new TreeMap<>();
            stream.getValue().fields().forEachRemaining(shard -> shards.put(shard.getKey(), new Position(
                    shard.getValue().path("sequenceNumber").isTextual() ? shard.getValue().get("sequenceNumber").textValue() : null,
                    shard.getValue().path("finished").asBoolean(false))));
            positions.put(stream.getKey(), shards);
        }
    }

    private void persist() {
        if (file == null) {
            return;
        }
        ObjectNode root = JSON.createObjectNode();
        root.put("version", 1);
        ObjectNode streams = root.putObject("streams");
        positions.forEach((arn, shards) -> {
            ObjectNode stream = streams.putObject(arn);
            shards.forEach((shardId, position) -> {
                ObjectNode shard = stream.putObject(shardId);
                if (position.sequenceNumber() != null) {
                    shard.put("sequenceNumber", position.sequenceNumber());
                }
                shard.put("finished", position.finished());
            });
        });
        Path temp = file.resolveSibling(FILE_NAME + ".tmp");
        try {
            Files.write(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write stream checkpoints to " + file
                    + "; check the data directory is writable", e);
        }
    }
}
