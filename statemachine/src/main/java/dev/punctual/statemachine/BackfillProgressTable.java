package dev.punctual.statemachine;

/**
 * Where a backfill run stands, outside any execution, so a run stopped or failed halfway and started
 * again goes on from where its segments were: a DynamoDB table (the construct creates one per
 * watched table; the local runtime one for all). Its items hold table names, counts and each
 * segment's Scan position (the key of the last item a page read), never item images.
 *
 * <ul>
 *   <li>a run: partition {@code <table>}, sort {@link #RUN_PART}: the run's id, segments, TTL
 *       attribute, key attributes, page size, rate, when it started and, once every segment is done,
 *       when it finished;</li>
 *   <li>a segment: partition {@code <table>}, sort {@code segment#<nnnn>}: the run it belongs to,
 *       its position, whether it is done, pages scanned and counts.</li>
 * </ul>
 */
public final class BackfillProgressTable {

    /** Partition key attribute (String): the backfilled table's name. */
    public static final String PARTITION_KEY = "table";
    /** Sort key attribute (String): {@link #RUN_PART} or {@link #segmentPart(int)}. */
    public static final String SORT_KEY = "part";
    /** Sort key of a table's run item. */
    public static final String RUN_PART = "run";
    /** Prefix of a segment item's sort key. */
    public static final String SEGMENT_PREFIX = "segment#";

    /** Run and segment attribute: the run's id. */
    public static final String RUN_ID = "runId";
    /** Run attribute: Scan segments. */
    public static final String SEGMENTS = "segments";
    /** Run attribute: the TTL attribute the run reads. */
    public static final String TTL_ATTRIBUTE = "ttlAttribute";
    /** Run attribute: the table's key attribute names, the Scan's projection. */
    public static final String KEY_ATTRIBUTES = "keyAttributes";
    /** Run attribute: items per page. */
    public static final String PAGE_SIZE = "pageSize";
    /** Run attribute: StartExecution calls per second, all segments together. */
    public static final String STARTS_PER_SECOND = "startsPerSecond";
    /** Run attribute: the mode the run began in (informational: every page schedules in the current mode). */
    public static final String MODE = "mode";
    /** Run attribute: when the run began (RFC 3339). */
    public static final String STARTED_AT = "startedAt";
    /** Run attribute: when its last segment was done (RFC 3339); absent while unfinished. */
    public static final String FINISHED_AT = "finishedAt";
    /** Segment attribute: the key of the last item scanned, a map of attribute values; absent at the start. */
    public static final String POSITION = "position";
    /** Segment attribute: whether the segment has been scanned to its end. */
    public static final String DONE = "done";
    /** Segment attribute: pages scanned so far; every save checks it, so two executions never move a segment back. */
    public static final String PAGES = "pages";

    /** The local runtime's progress table. */
    public static final String LOCAL_TABLE_NAME = "punctual-backfill-progress";

    private BackfillProgressTable() {
    }

    /** A segment item's sort key: zero-padded so a Query lists segments in order. */
    public static String segmentPart(int segment) {
        return SEGMENT_PREFIX + String.format("%04d", segment);
    }
}
