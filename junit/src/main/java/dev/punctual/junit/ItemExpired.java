package dev.punctual.junit;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * One {@code ItemExpired} event as Punctual publishes it to EventBridge, read back: what a rule's
 * target (the application's reaction to an expiry) would get in its {@code detail}.
 *
 * @param table the table the item was in
 * @param key the item's key, attribute name to its value as text (a number's digits, a string as is)
 * @param ttl the TTL attribute's value the item expired with
 * @param expiredBy {@code punctual} (Punctual's own delete) or {@code native-ttl}
 * @param deletedAt when the delete was seen, on the runtime's clock
 * @param lag how long after the TTL the delete was seen, in the runtime's time
 */
public record ItemExpired(String table, Map<String, String> key, String ttl, String expiredBy, Instant deletedAt,
                          Duration lag) {

    /** The value of one key attribute, as text. */
    public String key(String attribute) {
        String value = key.get(attribute);
        if (value == null) {
            throw new IllegalArgumentException("The key of this " + table + " item has no attribute " + attribute
                    + "; it has " + key.keySet());
        }
        return value;
    }

    /** Whether Punctual's own delete expired the item (and not native TTL's). */
    public boolean byPunctual() {
        return "punctual".equals(expiredBy);
    }
}
