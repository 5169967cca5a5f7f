package dev.punctual.backfill;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where backfill runs keep their progress, outside any execution (see
 * {@link dev.punctual.statemachine.BackfillProgressTable}): one run per table at a time, and each of
 * its segments' positions. Every read is strongly consistent, and every write is conditional, so
 * executions working on one run at once never undo each other's progress.
 */
public interface ProgressStore {

    /** The table's current (or last) run, if any. */
    Optional<BackfillRun> run(String table);

    /**
     * Records {@code run} as the table's run, if the table has none or its run is still
     * {@code replacing}. False when another execution began a run first: join that one.
     */
    boolean begin(BackfillRun run, Optional<String> replacing);

    /** Marks the run finished at {@code at}, if it is still the table's run. */
    void finish(String table, String runId, Instant at);

    /** Every segment item of the table, of whichever run, in segment order. */
    List<SegmentProgress> segments(String table);

    /** Segment {@code segment} of the table, of whichever run wrote it last, if any. */
    Optional<SegmentProgress> segment(String table, int segment);

    /**
     * Saves {@code next}, if the stored segment is where this page started: {@code pagesBefore} pages
     * of the same run, or (at 0) none of it. False when another execution saved the segment first.
     */
    boolean save(String table, SegmentProgress next, long pagesBefore);
}
