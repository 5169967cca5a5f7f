package dev.punctual.local.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.RetainedLog;
import dev.punctual.local.retention.Retention;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The events the local EventBridge endpoint accepted, in the order it accepted them, each with a
 * position ({@code 1, 2, …}) readers resume from. Only the newest are kept, within a count and an age
 * ({@code --retain events}); positions go on counting, so a reader that falls behind learns how many it
 * missed ({@link Page#dropped()}).
 *
 * <p>With a directory they are appended to {@code events.jsonl} there, one JSON line each, written
 * before {@code PutEvents} answers, and read back at start, so they survive a restart; a last line cut
 * short by a crash is dropped. Once the file holds twice the count it is rewritten with only the
 * events kept, so it stays proportional to the retention, not to every event ever put.
 */
public final class EventStore implements AutoCloseable {

    /** The file under the data directory's {@code events/}. */
    public static final String FILE_NAME = "events.jsonl";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Clock clock;
    private final RetainedLog<StoredEvent> events;
    private final Path path;
    private BufferedWriter file;
    private long lastPosition;
    private long linesInFile;

    /** One accepted event: its position, the bus it was put on, and the event as a rule's target receives it. */
    public record StoredEvent(long position, String eventBusName, ObjectNode event) {

        /** The detail's {@code table}, or empty text when the event has none. */
        public String table() {
            JsonNode table = event.path("detail").path("table");
            return table.isTextual() ? table.asText() : "";
        }
    }

    private EventStore(Path directory, Retention retention, Clock clock) {
        this.clock = clock;
        this.events = new RetainedLog<>(retention);
        if (directory == null) {
            path = null;
            return;
        }
        try {
            Files.createDirectories(directory);
            path = directory.resolve(FILE_NAME);
            if (Files.exists(path)) {
                for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                    load(line);
                }
            }
            events.trim(clock.instant());
            rewrite();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open the event store in " + directory, e);
        }
    }

    /** A store in memory with the default retention, on the system clock. */
    public static EventStore inMemory() {
        return new EventStore(null, Retained.EVENTS.defaults(), Clock.systemUTC());
    }

    /** A store kept in {@code directory} ({@code null}: in memory) with the default retention, on the system clock. */
    public static EventStore in(Path directory) {
        return new EventStore(directory, Retained.EVENTS.defaults(), Clock.systemUTC());
    }

    /**
     * A store kept in {@code directory} ({@code null}: in memory) that keeps what {@code retention}
     * allows, aged on {@code clock}.
     */
    public static EventStore in(Path directory, Retention retention, Clock clock) {
        return new EventStore(directory, retention, clock);
    }

    private void load(String line) {
        if (line.isBlank()) {
            return;
        }
        try {
            JsonNode stored = JSON.readTree(line);
            // Files written before events carried a position and a time count by line, accepted now.
            long position = stored.path("position").asLong(lastPosition + 1);
            Instant at = stored.has("at") ? Instant.ofEpochMilli(stored.get("at").asLong()) : clock.instant();
            events.add(new StoredEvent(position, stored.path("eventBusName").asText(), (ObjectNode) stored.get("event")), at);
            lastPosition = position;
        } catch (IOException | ClassCastException e) {
            // A line cut short by a crash: its PutEvents never answered, so the sender retries it.
        }
    }

    /** Appends {@code event} (put on {@code eventBusName}); returns it with its position. */
    public synchronized StoredEvent append(String eventBusName, ObjectNode event) {
        Instant now = clock.instant();
        StoredEvent stored = new StoredEvent(lastPosition + 1, eventBusName, event);
        if (file != null) {
            try {
                if (linesInFile >= 2L * events.retention().count()) {
                    rewrite();
                }
                writeLine(stored, now.toEpochMilli());
            } catch (IOException e) {
                throw new UncheckedIOException("Could not write the event store", e);
            }
        }
        lastPosition = stored.position();
        events.add(stored, now);
        return stored;
    }

    private void writeLine(StoredEvent stored, long atMillis) throws IOException {
        writeLine(file, stored, atMillis);
        linesInFile++;
    }

    private static void writeLine(BufferedWriter out, StoredEvent stored, long atMillis) throws IOException {
        ObjectNode line = JSON.createObjectNode();
        line.put("position", stored.position());
        line.put("at", atMillis);
        line.put("eventBusName", stored.eventBusName());
        line.set("event", stored.event());
        out.write(JSON.writeValueAsString(line));
        out.newLine();
    }

    /** Replaces the file with the events kept (written aside, then moved over it), and appends to it from then on. */
    private void rewrite() throws IOException {
        if (file != null) {
            file.close();
        }
        Path aside = path.resolveSibling(FILE_NAME + ".tmp");
        try (BufferedWriter out = Files.newBufferedWriter(aside, StandardCharsets.UTF_8)) {
            events.forEachOldestFirst((stored, at) -> {
                try {
                    writeLine(out, stored, at.toEpochMilli());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        Files.move(aside, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        file = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        linesInFile = events.size();
    }

    /** Makes appended events durable (called once per PutEvents call, before it answers). */
    public synchronized void flush() {
        if (file != null) {
            try {
                file.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("Could not write the event store", e);
            }
        }
    }

    /**
     * Events read from a position on, and the position to read on from.
     *
     * @param dropped events after the position asked for that are no longer kept (of every table): the
     *     reader cannot see them
     */
    public record Page(List<StoredEvent> events, long next, long dropped) {
    }

    /** Up to {@code limit} events after position {@code after}, of {@code table} when it is not null. */
    public synchronized Page after(long after, String table, int limit) {
        events.trim(clock.instant());
        List<StoredEvent> page = new ArrayList<>();
        long firstKept = lastPosition - events.size() + 1;
        long dropped = Math.max(0, Math.min(firstKept - 1, lastPosition) - Math.max(0, after));
        long next = Math.max(after, firstKept - 1);
        for (StoredEvent event : events.oldestFirst()) {
            if (page.size() == limit) {
                break;
            }
            if (event.position() <= next) {
                continue;
            }
            next = event.position();
            if (table == null || table.equals(event.table())) {
                page.add(event);
            }
        }
        return new Page(List.copyOf(page), Math.min(next, lastPosition), dropped);
    }

    /** How many events the store holds. */
    public synchronized int size() {
        events.trim(clock.instant());
        return events.size();
    }

    /** How many events were accepted since the store began, kept or not. */
    public synchronized long published() {
        return lastPosition;
    }

    /** Every event kept, oldest first. */
    public synchronized List<StoredEvent> all() {
        events.trim(clock.instant());
        return events.oldestFirst();
    }

    @Override
    public synchronized void close() {
        if (file != null) {
            try {
                file.close();
            } catch (IOException e) {
                throw new UncheckedIOException("Could not close the event store", e);
            }
        }
    }
}
