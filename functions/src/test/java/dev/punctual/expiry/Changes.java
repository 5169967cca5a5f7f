package dev.punctual.expiry;

import java.time.Instant;
import java.util.Map;

/** Builders of stream changes for tests: one item {@code id = "a"} of table {@code orders}, TTL attribute {@code ttl}. */
public final class Changes {

    public static final String TABLE = "orders";
    public static final ItemKey KEY = ItemKey.of(Map.of("id", AttributeText.s("a")));

    private Changes() {
    }

    public static AttributeText n(String number) {
        return AttributeText.n(number);
    }

    public static StreamChange insert(AttributeText ttl) {
        return new StreamChange(TABLE, EventName.INSERT, KEY, false, null, true, ttl, "100", StreamChange.Writer.UNKNOWN, null);
    }

    public static StreamChange modify(AttributeText oldTtl, AttributeText newTtl) {
        return new StreamChange(TABLE, EventName.MODIFY, KEY, true, oldTtl, true, newTtl, "200", StreamChange.Writer.UNKNOWN, null);
    }

    public static StreamChange modifyWithoutOldImage(AttributeText newTtl) {
        return new StreamChange(TABLE, EventName.MODIFY, KEY, false, null, true, newTtl, "201", StreamChange.Writer.UNKNOWN, null);
    }

    public static StreamChange remove(AttributeText oldTtl, StreamChange.Writer writer, Instant written) {
        return new StreamChange(TABLE, EventName.REMOVE, KEY, true, oldTtl, false, null, "300", writer, written);
    }

    public static StreamChange withKey(StreamChange change, ItemKey key) {
        return new StreamChange(change.table(), change.eventName(), key, change.oldImage(), change.oldTtl(),
                change.newImage(), change.newTtl(), change.sequenceNumber(), change.writer(), change.approximateCreation());
    }

    public static StreamChange withTable(StreamChange change, String table) {
        return new StreamChange(table, change.eventName(), change.key(), change.oldImage(), change.oldTtl(),
                change.newImage(), change.newTtl(), change.sequenceNumber(), change.writer(), change.approximateCreation());
    }
}
