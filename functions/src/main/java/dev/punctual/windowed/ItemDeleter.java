package dev.punctual.windowed;

import dev.punctual.expiry.ItemKey;

/**
 * The conditional delete of one expired item: {@code DeleteItem} with {@code #ttl = :ttl}, the TTL
 * text exactly as indexed, the same condition {@code expire-item.asl.json} uses. Failures a retry
 * may cure surface as unchecked exceptions.
 */
public interface ItemDeleter {

    /** What the delete found. */
    enum Result {
        /** The item still held the TTL and is deleted. */
        DELETED,
        /** The item's TTL changed or the item is gone: nothing deleted. */
        SUPERSEDED
    }

    Result deleteIfUnchanged(String table, ItemKey key, String ttlAttribute, String ttl);
}
