package dev.punctual.backfill;

import dev.punctual.statemachine.BackfillWorkflow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One backfill of one table, from its first page to its last, across every execution that works on it:
 * one stopped halfway and started again, its successors, or two started at once. Kept in the progress
 * store; its segments each keep their own position.
 *
 * @param id the run's id ({@code <start instant>-<digest>})
 * @param table the table scanned
 * @param segments parallel Scan segments
 * @param ttlAttribute the TTL attribute read
 * @param keyAttributes the table's key attribute names: the Scan projects these and the TTL attribute
 * @param pageSize items per Scan page at most
 * @param startsPerSecond StartExecution calls per second, all segments together; {@code 0} for no limit
 * @param mode the mode the run began in ({@code per-item}, {@code windowed}); pages schedule in the current one
 * @param startedAt when the run began
 * @param finishedAt when its last segment was done; {@code null} while unfinished
 */
public record BackfillRun(String id, String table, int segments, String ttlAttribute, List<String> keyAttributes,
        int pageSize, double startsPerSecond, String mode, Instant startedAt, Instant finishedAt) {

    public BackfillRun {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(ttlAttribute, "ttlAttribute");
        keyAttributes = List.copyOf(keyAttributes);
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(startedAt, "startedAt");
        if (segments < 1 || segments > BackfillWorkflow.MAX_SEGMENTS) {
            throw new BackfillInputException("segments must be 1 to " + BackfillWorkflow.MAX_SEGMENTS + ", got " + segments);
        }
        if (pageSize < 1 || pageSize > BackfillWorkflow.MAX_PAGE_SIZE) {
            throw new BackfillInputException("pageSize must be 1 to " + BackfillWorkflow.MAX_PAGE_SIZE + ", got " + pageSize);
        }
        if (!(startsPerSecond >= 0) || Double.isInfinite(startsPerSecond)) {
            throw new BackfillInputException("startsPerSecond must be a number of StartExecution calls a second,"
                    + " 0 for no limit; got " + startsPerSecond);
        }
        if (keyAttributes.isEmpty() || keyAttributes.size() > 2) {
            throw new IllegalArgumentException("a table has 1 or 2 key attributes, got " + keyAttributes);
        }
    }

    /** Whether some segment still has pages to scan. */
    public boolean unfinished() {
        return finishedAt == null;
    }

    /** When the run finished, if it has. */
    public Optional<Instant> finished() {
        return Optional.ofNullable(finishedAt);
    }

    /** This run, finished at {@code at}. */
    public BackfillRun finishedAt(Instant at) {
        return new BackfillRun(id, table, segments, ttlAttribute, keyAttributes, pageSize, startsPerSecond, mode,
                startedAt, at);
    }

    /** One segment's share of the run's StartExecution rate; {@code 0} for no limit. */
    public double segmentStartsPerSecond() {
        return startsPerSecond / segments;
    }

    /**
     * Items one page reads: the page size, cut to what the segment's share of the rate starts within
     * {@link BackfillWorkflow#PAGE_TIME_BUDGET}, so a page never outlasts the function.
     */
    public int pageLimit() {
        if (startsPerSecond == 0) {
            return pageSize;
        }
        long fits = (long) Math.floor(segmentStartsPerSecond() * seconds(BackfillWorkflow.PAGE_TIME_BUDGET));
        return (int) Math.max(1, Math.min(pageSize, fits));
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }
}
