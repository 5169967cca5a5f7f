package dev.punctual.local.billing;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * When each item of a tracked table was deleted by Punctual: the moment its conditional delete
 * returned. The trial reads it to measure windowed mode's lag, where no per-item execution history
 * exists. Only tables asked for are tracked, so a long-running runtime keeps nothing; listeners
 * (the local console) hear of every conditional delete on any table and keep what they need.
 */
public final class DeletionLedger {

    /** Told of each of Punctual's conditional deletes of an item, in both modes, as it returns. */
    public interface Listener {

        /**
         * The delete removed the item.
         *
         * @param ttl the TTL Number's text the delete compared, or {@code null} if it compared none
         */
        void deleted(String table, Map<String, AttributeValue> key, String ttl, Instant at);

        /** The delete's condition failed: the item's TTL changed or the item is gone. */
        void superseded(String table, Map<String, AttributeValue> key, String ttl, Instant at);
    }

    private static final System.Logger LOG = System.getLogger(DeletionLedger.class.getName());

    private final Map<String, Map<Map<String, AttributeValue>, Instant>> tracked = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    /** Tells {@code listener} of every delete from now on. */
    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** Stops telling {@code listener}. */
    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    /** Starts recording deletes of {@code table}'s items. */
    public void track(String table) {
        tracked.putIfAbsent(table, new ConcurrentHashMap<>());
    }

    /** Stops recording and forgets {@code table}. */
    public void forget(String table) {
        tracked.remove(table);
    }

    void deleted(String table, Map<String, AttributeValue> key, String ttl, Instant at) {
        listeners.forEach(listener -> tell(() -> listener.deleted(table, key, ttl, at)));
        Map<Map<String, AttributeValue>, Instant> deletes = tracked.get(table);
        if (deletes != null) {
            deletes.putIfAbsent(key, at);
        }
    }

    void superseded(String table, Map<String, AttributeValue> key, String ttl, Instant at) {
        listeners.forEach(listener -> tell(() -> listener.superseded(table, key, ttl, at)));
    }

    /** A listener's failure is its own: the delete it hears of has happened and must report success. */
    private static void tell(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "A deletion listener failed: " + e);
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
