package dev.punctual.events;

import dev.punctual.statemachine.ExpiryEvents;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One {@code ItemExpired} event ready for {@code PutEvents}, with the stream record it reports.
 *
 * @param sequenceNumber the REMOVE record's sequence number: reported for retry if the event is not published
 * @param time the event's time
 * @param detail the event's detail, a JSON object
 * @param resources the event's resources (the table's ARN)
 */
public record EventEntry(String sequenceNumber, Instant time, String detail, List<String> resources) {

    public EventEntry {
        Objects.requireNonNull(sequenceNumber, "sequenceNumber");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(detail, "detail");
        resources = List.copyOf(resources);
    }

    /** The entry's size as EventBridge counts it against {@link ExpiryEvents#MAX_ENTRY_BYTES}. */
    public int sizeInBytes() {
        return sizeInBytes(detail, resources);
    }

    /** The size of an entry with this detail and these resources, as EventBridge counts it. */
    public static int sizeInBytes(String detail, List<String> resources) {
        int size = ExpiryEvents.TIME_BYTES + utf8(ExpiryEvents.SOURCE) + utf8(ExpiryEvents.DETAIL_TYPE) + utf8(detail);
        for (String resource : resources) {
            size += utf8(resource);
        }
        return size;
    }

    private static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
