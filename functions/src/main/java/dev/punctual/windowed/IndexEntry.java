package dev.punctual.windowed;

import dev.punctual.expiry.ItemKey;
import java.util.Objects;

/**
 * One item in the schedule index: which item, the TTL text its delete compares, and the second it
 * is due (the TTL rounded up). Never any other part of the item.
 */
public record IndexEntry(ItemKey key, String ttl, long due) {

    public IndexEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ttl, "ttl");
    }
}
