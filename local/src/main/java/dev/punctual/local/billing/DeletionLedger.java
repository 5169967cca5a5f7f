package dev.punctual.local.billing;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * When each item of a tracked table was deleted by Punctual: the moment its conditional delete
 * returned. The trial reads it to measure windowed mode's lag, where no per-item execution history
 * exists. Only tables asked for are tracked, so a long-running runtime keeps nothing.
 */
public final class DeletionLedger {

    private final Map<String, Map<Map<String, AttributeValue>, Instant>> tracked = new ConcurrentHashMap<>();

    /** Starts recording deletes of {@code table}'s items. */
    public void track(String table) {
        tracked.putIfAbsent(table, new ConcurrentHashMap<>());
    }

    /** Stops recording and forgets {@code table}. */
    public void forget(String table) {
        tracked.remove(table);
    }

    void deleted(String table, Map<String, AttributeValue> key, Instant at) {
        Map<Map<String, AttributeValue>, Instant> deletes = tracked.get(table);
        if (deletes != null) {
            deletes.putIfAbsent(key, at);
        }
    }

    /** When the item with {@code key} was deleted, if it was (and {@code table} is tracked). */
    public Optional<Instant> deletedAt(String table, Map<String, AttributeValue> key) {
        Map<Map<String, AttributeValue>, Instant> deletes = tracked.get(table);
        return deletes == null ? Optional.empty() : Optional.ofNullable(deletes.get(key));
    }

    /** How many of {@code table}'s items have been deleted since tracking began. */
    public int count(String table) {
        Map<Map<String, AttributeValue>, Instant> deletes = tracked.get(table);
        return deletes == null ? 0 : deletes.size();
    }
}
