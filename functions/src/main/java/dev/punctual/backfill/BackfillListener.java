package dev.punctual.backfill;

import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Reason;
import java.util.Map;

/** Hears what a backfill does, once per event: where its log lines come from. */
public interface BackfillListener {

    /** Nothing to hear. */
    BackfillListener NONE = new BackfillListener() {
    };

    /** An execution joined {@code run}: {@code resumed} when the run was already under way. */
    default void prepared(BackfillRun run, boolean resumed, int segmentsLeft) {
    }

    /**
     * A page was scheduled and its segment's position saved: {@code page} counts this page,
     * {@code skipped} its skipped items by reason.
     */
    default void pageSaved(BackfillRun run, SegmentProgress segment, BackfillCounts page, Map<Reason, Long> skipped) {
    }

    /** A page was scheduled, but another execution had saved the segment first; its save stands. */
    default void pageOverlapped(BackfillRun run, int segment) {
    }

    /**
     * An item was not scheduled for a reason that points at bad data (a TTL of the wrong type, in
     * milliseconds, a key DynamoDB would not take): told once, when its page is saved.
     */
    default void itemSkipped(BackfillRun run, ItemKey key, Reason reason, String detail) {
    }

    /** Every segment of {@code run} is done. */
    default void finished(BackfillRun run, BackfillCounts totals) {
    }
}
