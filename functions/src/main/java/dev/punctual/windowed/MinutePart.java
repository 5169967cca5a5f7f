package dev.punctual.windowed;

/**
 * Which runner of a minute bucket: each has its own seconds of the minute and its own
 * {@link RunnerMark}, so each runs the same protocol over its part alone.
 * <ul>
 *   <li>{@link #MAIN}: the minute's execution as planned for the first due second its first party saw
 *       ({@link BucketInput#planned}): the seconds from {@link BucketInput#from()} to the minute's end.</li>
 *   <li>{@link #EARLY}: the seconds before that, started only when an item for one of them comes (items
 *       of a minute reach the handler out of order when a table's writers run in parallel, and a coarse
 *       bucket's cascade can find entries the handler's plan did not know of). It wakes as early as it can
 *       ({@link BucketInput#early}), so a later item is never before it.</li>
 * </ul>
 */
public enum MinutePart {
    MAIN,
    EARLY
}
