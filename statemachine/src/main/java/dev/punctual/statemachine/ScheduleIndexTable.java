package dev.punctual.statemachine;

import java.time.Duration;

/**
 * The schedule index of windowed mode: a DynamoDB table (the construct creates one per watched
 * table; the local runtime one for all) that holds which item expires in which second. Its items
 * hold the indexed item's key and TTL text, never the item's image.
 *
 * <ul>
 *   <li>entries: partition {@code <table>|<minute start>}, sort {@code <due second>|<chunk digest>},
 *       attribute {@link #ENTRIES}: a list of {@code {key, ttl}} maps written by one stream batch;</li>
 *   <li>seals: partition {@code seal|<table>|<level>|<bucket start>}, sort {@link #SEAL_SORT_KEY}:
 *       written by a bucket's execution before it reads the bucket. A minute bucket's seal instead holds
 *       its runner's mark ({@link #THROUGH}, {@link #NEXT}), which the runner raises one due second at a
 *       time; the minute's early part (the seconds before its planned runner wakes, worked by a runner of
 *       their own) keeps its mark beside it, under sort {@link #EARLY_MARK_SORT_KEY}.</li>
 * </ul>
 */
public final class ScheduleIndexTable {

    /** Partition key attribute (String). */
    public static final String PARTITION_KEY = "bucket";
    /** Sort key attribute (String). */
    public static final String SORT_KEY = "entry";
    /** Native TTL attribute of the index itself: removes entries and seals long after their second. */
    public static final String EXPIRES_AT = "expiresAt";
    /** Attribute of an entry chunk: the list of indexed items. */
    public static final String ENTRIES = "entries";
    /** Field of one indexed item: its primary key, as a map of attribute values. */
    public static final String ENTRY_KEY = "key";
    /** Field of one indexed item: its TTL Number exactly as stored. */
    public static final String ENTRY_TTL = "ttl";
    /** Sort key of every seal item. */
    public static final String SEAL_SORT_KEY = "seal";
    /** Sort key of a minute's early part's mark, in the minute's seal partition. */
    public static final String EARLY_MARK_SORT_KEY = "early";
    /** Attribute of a seal: when the bucket's execution sealed it. */
    public static final String SEALED_AT = "sealedAt";
    /** Attribute of a minute's seal (Number): its runner has sealed every second up to this one. */
    public static final String THROUGH = "through";
    /** Attribute of a minute's seal (Number): the next due second its runner's latest read found. */
    public static final String NEXT = "next";

    /** The local runtime's index table. */
    public static final String LOCAL_TABLE_NAME = "punctual-schedule-index";

    /**
     * How long entries and seals outlive their second before native TTL removes them. Past TTLs are
     * deleted at once without the index, so nothing reads a bucket this old; a week leaves time to
     * inspect what a bucket held.
     */
    public static final Duration RETENTION = Duration.ofDays(7);

    private ScheduleIndexTable() {
    }
}
