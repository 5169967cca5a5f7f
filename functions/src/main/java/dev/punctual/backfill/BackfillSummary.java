package dev.punctual.backfill;

import dev.punctual.expiry.Reason;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts of what a backfill run did (this run only: a resumed run does not count what an earlier
 * run scanned).
 *
 * @param scanned items read from the table
 * @param scheduled starts Step Functions accepted: new executions, restarts after a closed one, and
 *     starts it answered with an execution already running under the same name and input (it does
 *     not say which, so a re-run counts its items here again while starting nothing new)
 * @param alreadyPending items whose name was held by a running execution with another input (one
 *     started earlier, when the same TTL was more horizon hops away) or by a chain's predecessor
 * @param ignored items not scheduled, by reason (no TTL, not a Number, milliseconds, too old, ...)
 * @param failed items whose start failed after the SDK's retries; run the backfill again to retry them
 */
public record BackfillSummary(long scanned, long scheduled, long alreadyPending, Map<Reason, Long> ignored, long failed) {

    public BackfillSummary {
        ignored = Collections.unmodifiableMap(ignored.isEmpty() ? new EnumMap<>(Reason.class) : new EnumMap<>(ignored));
    }

    /** Items not scheduled, all reasons together. */
    public long ignoredTotal() {
        return ignored.values().stream().mapToLong(Long::longValue).sum();
    }
}
