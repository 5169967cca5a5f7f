package dev.punctual.expiry;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One stream record as expiry sees it, free of Lambda types: which item changed how, and the TTL
 * attribute before and after. Nothing else of the item images is kept, so no user data travels
 * further than the edge that built this.
 *
 * @param table the table's name
 * @param eventName INSERT, MODIFY or REMOVE
 * @param key the item's primary key
 * @param oldImage whether the record carries an old image (stream view OLD_IMAGE or NEW_AND_OLD_IMAGES)
 * @param oldTtl the TTL attribute in the old image, {@code null} when absent there or no old image
 * @param newImage whether the record carries a new image
 * @param newTtl the TTL attribute in the new image, {@code null} when absent there or no new image
 * @param sequenceNumber the record's sequence number, the identifier a batch failure is reported by
 * @param writer who wrote the change; {@link Writer#UNKNOWN} for ordinary writes
 * @param approximateCreation when the change was written, {@code null} if the record does not say
 */
public record StreamChange(
        String table,
        EventName eventName,
        ItemKey key,
        boolean oldImage,
        AttributeText oldTtl,
        boolean newImage,
        AttributeText newTtl,
        String sequenceNumber,
        Writer writer,
        Instant approximateCreation) {

    public StreamChange {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(eventName, "eventName");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(writer, "writer");
        if (oldTtl != null && !oldImage) {
            throw new IllegalArgumentException("an old TTL needs an old image");
        }
        if (newTtl != null && !newImage) {
            throw new IllegalArgumentException("a new TTL needs a new image");
        }
    }

    /** The record's user identity reduced to what matters: was it DynamoDB's own TTL process. */
    public enum Writer {
        /** No user identity, or one that is not the TTL service: an application or a Punctual delete. */
        UNKNOWN,
        /** {@code userIdentity} {@code {"type":"Service","principalId":"dynamodb.amazonaws.com"}}: native TTL. */
        TTL_SERVICE;

        /** Classifies a stream record's {@code userIdentity} fields, either of which may be null. */
        public static Writer of(String type, String principalId) {
            return "Service".equals(type) && "dynamodb.amazonaws.com".equals(principalId) ? TTL_SERVICE : UNKNOWN;
        }
    }

    /** When the change was written, if the record says. */
    public Optional<Instant> approximateCreationTime() {
        return Optional.ofNullable(approximateCreation);
    }

    /**
     * An INSERT as a Scan sees an existing item: the backfill feeds items through the rules this way.
     * {@code position} (the item's place in its Scan page) stands in for the sequence number a batch
     * processor reports a failure by.
     */
    public static StreamChange existingItem(String table, ItemKey key, AttributeText ttl, String position) {
        return new StreamChange(table, EventName.INSERT, key, false, null, true, ttl, position, Writer.UNKNOWN, null);
    }
}
