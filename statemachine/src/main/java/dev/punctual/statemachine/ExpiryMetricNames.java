package dev.punctual.statemachine;

/**
 * The CloudWatch metrics the stream handler publishes (as embedded metric format log lines, so no API
 * call and no IAM permission) and the construct's dashboard and alarms read. Both sides take the names
 * from here, so a renamed metric cannot leave a dashboard widget watching nothing.
 */
public final class ExpiryMetricNames {

    /** The CloudWatch namespace of every metric below. */
    public static final String NAMESPACE = "Punctual";

    /** Every metric carries the table it is about, so two constructs in one account stay apart. */
    public static final String DIMENSION_TABLE = "TableName";

    /** {@link #RECORDS_IGNORED} also carries the rule that ignored the record ({@code Reason} names). */
    public static final String DIMENSION_REASON = "Reason";

    /**
     * Milliseconds from an item's TTL to the moment the handler read Punctual's own delete of it from the
     * stream. It includes the stream's delivery delay, so it is an upper bound on how late the delete was.
     */
    public static final String EXPIRY_LAG = "ExpiryLag";

    /** Items Punctual deleted at their TTL (one per own REMOVE record seen). */
    public static final String EXPIRED_BY_PUNCTUAL = "ExpiredByPunctual";

    /** Items native TTL deleted: the backstop won, Punctual did not delete them on time. */
    public static final String EXPIRED_BY_NATIVE_TTL = "ExpiredByNativeTtl";

    /** Records that started (or found pending) an expiry execution, or indexed an item into a bucket. */
    public static final String RECORDS_SCHEDULED = "RecordsScheduled";

    /** Records that made pending executions stale (a changed or removed TTL, an early delete). */
    public static final String RECORDS_SUPERSEDED = "RecordsSuperseded";

    /** Records that needed nothing, by {@link #DIMENSION_REASON}. */
    public static final String RECORDS_IGNORED = "RecordsIgnored";

    /** Records whose Step Functions (or, windowed, index) call failed; they are reported for retry. */
    public static final String START_EXECUTION_FAILURES = "StartExecutionFailures";

    private ExpiryMetricNames() {
    }
}
