package dev.punctual.backfill;

import dev.punctual.expiry.ItemKey;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one Scan segment of a run stands.
 *
 * @param runId the run the segment belongs to
 * @param segment the segment number
 * @param position the key of the last item scanned; {@code null} before the first page
 * @param done whether the segment has been scanned to its end
 * @param pages pages saved so far: a save names the count it read, so a page done twice by two
 *     executions at once never moves the segment back
 * @param counts what the segment's pages did
 */
public record SegmentProgress(String runId, int segment, ItemKey position, boolean done, long pages,
        BackfillCounts counts) {

    public SegmentProgress {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(counts, "counts");
        if (done && position != null) {
            throw new IllegalArgumentException("a segment scanned to its end has no position left");
        }
    }

    /** A segment of {@code runId} that no page has touched. */
    public static SegmentProgress start(String runId, int segment) {
        return new SegmentProgress(runId, segment, null, false, 0, BackfillCounts.NONE);
    }

    /** Where the next page starts reading after, if anywhere. */
    public Optional<ItemKey> resumeAfter() {
        return Optional.ofNullable(position);
    }

    /** The segment after one more page: the Scan's last key ({@code null} at the segment's end) and the page's counts. */
    public SegmentProgress after(ItemKey lastKey, BackfillCounts page) {
        return new SegmentProgress(runId, segment, lastKey, lastKey == null, pages + 1, counts.plus(page));
    }
}
