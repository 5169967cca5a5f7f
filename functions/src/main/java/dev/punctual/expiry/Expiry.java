package dev.punctual.expiry;

import dev.punctual.statemachine.ExpiryEvents;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One item that expired, as a REMOVE record shows it: what the {@code ItemExpired} event reports.
 *
 * @param table the table's name
 * @param key the item's key
 * @param ttl the TTL Number as stored, {@code null} when the record's old image does not hold it
 * @param expiredBy who deleted the item
 * @param deletedAt when the handler read the delete from the stream: the delete happened at most the
 *     stream's delivery delay before
 * @param id the same for every delivery of this REMOVE record ({@link dev.punctual.names.Digests#expiryEventId})
 */
public record Expiry(String table, ItemKey key, String ttl, By expiredBy, Instant deletedAt, String id) {

    /** Who deleted the expired item. */
    public enum By {
        /** Punctual's conditional delete, at or after the TTL. */
        PUNCTUAL(ExpiryEvents.BY_PUNCTUAL),
        /** DynamoDB's native TTL process, the backstop. */
        NATIVE_TTL(ExpiryEvents.BY_NATIVE_TTL);

        private final String label;

        By(String label) {
            this.label = label;
        }

        /** The value of the event's {@code expiredBy}. */
        public String label() {
            return label;
        }
    }

    public Expiry {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(expiredBy, "expiredBy");
        Objects.requireNonNull(deletedAt, "deletedAt");
        Objects.requireNonNull(id, "id");
    }

    /** Milliseconds from the TTL to {@link #deletedAt}; empty when the TTL is unknown or not a number. */
    public OptionalLong lagMillis() {
        if (ttl == null) {
            return OptionalLong.empty();
        }
        try {
            long ttlMillis = new BigDecimal(ttl).movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
            return OptionalLong.of(deletedAt.toEpochMilli() - ttlMillis);
        } catch (NumberFormatException | ArithmeticException e) {
            return OptionalLong.empty();
        }
    }
}
