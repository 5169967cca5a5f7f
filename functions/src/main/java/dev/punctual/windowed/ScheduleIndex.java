package dev.punctual.windowed;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;

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

    /** Every entry due in {@code second}, as written (duplicates included). */
    List<IndexEntry> entriesDue(String table, long second);

    /** The seconds of the minute starting at {@code minuteStart} that hold entries. */
    SortedSet<Long> dueSeconds(String table, long minuteStart);

    /** Whether the minute starting at {@code minuteStart} holds any entry. */
    boolean hasEntries(String table, long minuteStart);

    /** Marks {@code bucket} as read by its execution: entries written after this are not its concern. */
    void seal(Bucket bucket, Instant at);

    /** Whether {@code bucket}'s execution has sealed it. */
    boolean isSealed(Bucket bucket);
}
