package dev.punctual.local.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The events the local EventBridge endpoint accepted, in the order it accepted them, each with a
 * position ({@code 1, 2, …}) readers resume from. With a directory they are appended to
 * {@code events.jsonl} there, one JSON line each, written before {@code PutEvents} answers, and read
 * back at start, so they survive a restart; a last line cut short by a crash is dropped.
 */
public final class EventStore implements AutoCloseable {

    /** The file under the data directory's {@code events/}. */
    public static final String FILE_NAME = "events.jsonl";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<StoredEvent> events = new ArrayList<>();
    private final BufferedWriter file;

    /** One accepted event: its position, the bus it was put on, and the event as a rule's target receives it. */
    public record StoredEvent(long position, String eventBusName, ObjectNode event) {

        /** The detail's {@code table}, or empty text when the event has none. */
        public String table() {
            JsonNode table = event.path("detail").path("table");
            return table.isTextual() ? table.asText() : "";
        }
    }

    private EventStore(Path directory) {
        if (directory == null) {
            file = null;
            return;
        }
        try {
            Files.createDirectories(directory);
            Path path = directory.resolve(FILE_NAME);
            if (Files.exists(path)) {
                for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                    load(line);
                }
            }
            file = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open the event store in " + directory, e);
        }
    }

    /** A store in memory. */
    public static EventStore inMemory() {
        return new EventStore(null);
    }

    /** A store kept in {@code directory} ({@code null}: in memory). */
    public static EventStore in(Path directory) {
        return new EventStore(directory);
    }

    private void load(String line) {
        if (line.isBlank()) {
            return;
        }
        try {
            JsonNode stored = JSON.readTree(line);
            events.add(new StoredEvent(events.size() + 1, stored.path("eventBusName").asText(), (ObjectNode) stored.get("event")));
        } catch (IOException | ClassCastException e) {
            // A line cut short by a crash: its PutEvents never answered, so the sender retries it.
        }
    }

    /** Appends {@code event} (put on {@code eventBusName}); returns it with its position. */
    public synchronized StoredEvent append(String eventBusName, ObjectNode event) {
        StoredEvent stored = new StoredEvent(events.size() + 1, eventBusName, event);
        if (file != null) {
            ObjectNode line = JSON.createObjectNode();
            line.put("eventBusName", eventBusName);
            line.set("event", event);
            try {
                file.write(JSON.writeValueAsString(line));
                file.newLine();
            } catch (IOException e) {
                throw new UncheckedIOException("Could not write the event store", e);
            }
        }
        events.add(stored);
        return stored;
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

    /** Events read from a position on, and the position to read on from. */
    public record Page(List<StoredEvent> events, long next) {
    }

    /** Up to {@code limit} events after position {@code after}, of {@code table} when it is not null. */
    public synchronized Page after(long after, String table, int limit) {
        List<StoredEvent> page = new ArrayList<>();
        int i = (int) Math.max(0, Math.min(after, events.size()));
        for (; i < events.size() && page.size() < limit; i++) {
            StoredEvent event = events.get(i);
            if (table == null || table.equals(event.table())) {
                page.add(event);
            }
        }
        return new Page(List.copyOf(page), i);
    }

    /** How many events the store holds. */
    public synchronized int size() {
        return events.size();
    }

    /** Every event, oldest first. */
    public synchronized List<StoredEvent> all() {
        return List.copyOf(events);
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
