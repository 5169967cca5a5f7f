package dev.punctual.backfill;

import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.ExpiryMode;
import java.util.List;

/**
 * The table's mode, as backfill needs it: hand it a page of items, it schedules them the mode's way
 * (per item: one execution each, named as the stream handler names them; windowed: index entries and
 * buckets through the same windowed core) and says what became of each. Backfill reaches the mode
 * only through this interface.
 */
public interface ModeScheduling {

    /** The mode items are scheduled in. */
    ExpiryMode mode();

    /**
     * Schedules {@code items} (each an existing item as a Scan sees it,
     * {@link StreamChange#existingItem}) and returns one outcome per item, in the same order.
     *
     * @param ttlAttribute the table's TTL attribute
     * @param starts paces the StartExecution calls this makes
     * @param retries how long throttled Step Functions calls are retried with backoff
     */
    List<ItemOutcome> schedule(String ttlAttribute, List<StreamChange> items, RateLimiter starts,
            ThrottleBackoff.Batch retries);
}
