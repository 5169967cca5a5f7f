package dev.punctual.windowed;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;

/**
 * The schedule index (see {@link dev.punctual.statemachine.ScheduleIndexTable}): which items are
 * due in which second of a table, and which buckets their executions have sealed. Every read is
 * strongly consistent: the seal protocol between the stream handler and a bucket's execution
 * depends on a read seeing every write that finished before it.
 */
public interface ScheduleIndex {

    /**
     * Writes the entries of one stream batch that fall due in {@code second} as one chunk, named by
     * {@code digest} (a digest of its content), so writing the same chunk again changes nothing.
     */
    void putChunk(String table, long second, String digest, Collection<IndexEntry> entries);

    /**
     * Chunks one {@link #putChunks} request carries at most: DynamoDB's {@code BatchWriteItem} takes 25
     * items (a chunk is at most {@link BucketScheduler#MAX_CHUNK_BYTES}, so 25 stay under its 16 MB).
     */
    int CHUNKS_PER_WRITE = 25;

    /**
     * Writes every chunk, as {@link #putChunk} would, in as few requests as the store takes; returns once
     * each one is written, so a read that follows sees them all. Throws if any may not be written (the
     * caller can tell which by writing them one at a time).
     */
    default void putChunks(List<IndexChunk> chunks) {
        chunks.forEach(chunk -> putChunk(chunk.table(), chunk.second(), chunk.digest(), chunk.entries()));
    }

    /** Every entry due in {@code second}, as written (duplicates included). */
    List<IndexEntry> entriesDue(String table, long second);

    /** The first second after {@code after} within the minute starting at {@code minuteStart} that holds entries. */
    OptionalLong nextDueSecond(String table, long minuteStart, long after);

    /** Marks {@code bucket} as read by its execution: entries written after this are not its concern. */
    void seal(Bucket bucket, Instant at);

    /** Whether {@code bucket}'s execution has sealed it. */
    boolean isSealed(Bucket bucket);

    /**
     * How far the runner of one part of the minute bucket {@code minute} has got
     * ({@link RunnerMark#NOT_STARTED} before it begins). Each {@link MinutePart} has a mark of its own.
     */
    RunnerMark runnerMark(Bucket minute, MinutePart part);

    /**
     * Begins a runner of {@code part} of {@code minute}: sets its mark's {@code through} to the second
     * before the minute unless a runner of the part has begun already, and answers the mark as it stands
     * then, in one write. A runner run again (its execution's retry, a later generation, a duplicate)
     * learns from it how far the part has got ({@link BucketWorker#step}).
     */
    RunnerMark begin(Bucket minute, MinutePart part);

    /**
     * Seals every second of {@code part} of {@code minute} up to {@code second}: raises its mark's
     * {@code through} to it, leaving a higher one as it is (a write that lowered it would reopen what a
     * handler has relied on).
     */
    void advanceThrough(Bucket minute, MinutePart part, long second);

    /**
     * Records the next due second the runner's read after its latest {@code through} found: raises
     * {@code next} of {@code part}'s mark, never lowers it.
     */
    void recordNext(Bucket minute, MinutePart part, long second);

    /** The main part's mark ({@link #runnerMark(Bucket, MinutePart)}). */
    default RunnerMark runnerMark(Bucket minute) {
        return runnerMark(minute, MinutePart.MAIN);
    }
}
