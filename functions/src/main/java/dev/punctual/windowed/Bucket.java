package dev.punctual.windowed;

import dev.punctual.names.BucketExecutionName;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Instant;
import java.util.Objects;

/**
 * One bucket of one table: a level and the second it starts at. Its execution is named from both
 * ({@link #baseName}), so every record that needs the bucket starts the same one.
 */
public record Bucket(String table, BucketLevel level, long start) {

    public Bucket {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(level, "level");
        if (level.startOf(start) != start) {
            throw new IllegalArgumentException("a " + level.label() + " bucket starts on a multiple of "
                    + level.width() + " s, not at " + start);
        }
    }

    /** The bucket of {@code level} that holds {@code second}. */
    public static Bucket containing(String table, BucketLevel level, long second) {
        return new Bucket(table, level, level.startOf(second));
    }

    /** The first second after the bucket. */
    public long end() {
        return start + level.width();
    }

    /**
     * When its execution's Wait ends at the earliest, before any one-year cap: a one-second or minute
     * bucket {@link BucketWorkflow#WARM_LEAD} before its first second (its runner seals and reads that
     * second ahead of it, then waits for the instant), a coarse bucket when it cascades. A minute
     * bucket started for a later second of its minute wakes later ({@link BucketInput#planned}).
     */
    public Instant naturalWake() {
        return Instant.ofEpochSecond(start - level.cascadeLead());
    }

    /** The finer bucket holding {@code second}; only for coarse buckets. */
    public Bucket finerContaining(long second) {
        BucketLevel finer = level.finer().orElseThrow(() -> new IllegalStateException("a one-second bucket has no finer level"));
        return containing(table, finer, second);
    }

    /** The name all its executions share: its first execution's, which the others extend ({@link BucketInput#executionName()}). */
    public BucketExecutionName.Base baseName() {
        return BucketExecutionName.Base.of(table, level.label(), Instant.ofEpochSecond(start));
    }

    /** Its first execution's name. */
    public String executionName() {
        return baseName().toString();
    }

    @Override
    public String toString() {
        return table + "/" + level.label() + "@" + Instant.ofEpochSecond(start);
    }
}
