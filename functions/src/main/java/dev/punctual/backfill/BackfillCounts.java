package dev.punctual.backfill;

/**
 * What a page, a segment or a run did with the items it read.
 *
 * @param scanned items read from the table
 * @param scheduled items handed to the mode's scheduling: each now has its execution (per item) or its
 *     index entry and bucket (windowed); a second run counts them again while starting nothing new
 * @param deletedNow items whose TTL had already passed: deleted at once (windowed) or given an execution
 *     that deletes at once (per item), as the stream handler does
 * @param skipped items not scheduled: no TTL, a TTL native TTL would ignore, an unusable key, or (TTL
 *     passed) an item that changed between the Scan and its delete
 */
public record BackfillCounts(long scanned, long scheduled, long deletedNow, long skipped) {

    /** Nothing yet. */
    public static final BackfillCounts NONE = new BackfillCounts(0, 0, 0, 0);

    public BackfillCounts {
        if (scanned < 0 || scheduled < 0 || deletedNow < 0 || skipped < 0) {
            throw new IllegalArgumentException("counts are never negative");
        }
    }

    /** These counts and {@code other}'s together. */
    public BackfillCounts plus(BackfillCounts other) {
        return new BackfillCounts(scanned + other.scanned, scheduled + other.scheduled, deletedNow + other.deletedNow,
                skipped + other.skipped);
    }
}
