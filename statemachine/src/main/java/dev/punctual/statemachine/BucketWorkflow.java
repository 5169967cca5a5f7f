package dev.punctual.statemachine;

import java.time.Duration;
import java.util.Map;

/**
 * The facts {@code expire-bucket.asl.json} (windowed mode) relies on: the fields of its input, its
 * substitutions and the outcomes its output reports. The stream handler starts these executions and
 * the bucket function receives their input as its payload, so both read the names from here.
 */
public final class BucketWorkflow {

    /** Input: the table whose items the bucket holds. */
    public static final String TABLE = "table";
    /** Input: the name of that table's TTL attribute. */
    public static final String TTL_ATTRIBUTE = "ttlAttribute";
    /** Input: the bucket's level, {@code second}, {@code minute}, {@code hour} or {@code day}. */
    public static final String LEVEL = "level";
    /** Input: RFC 3339 UTC instant the bucket starts at (a whole second). */
    public static final String BUCKET_START = "bucketStart";
    /** Input: RFC 3339 UTC instant the Wait state ends; before {@link #BUCKET_START}, see {@link #WARM_LEAD}. */
    public static final String WAKE_AT = "wakeAt";
    /** Input: how many one-year hops this bucket's chain has made (0 for the first execution). */
    public static final String HOP = "hop";
    /**
     * Input: which generation of its bucket this execution is (absent for the first, 0). A successor
     * generation replaces an execution that failed, timed out or was stopped before it finished; see
     * {@link ExecutionStatusEvents}.
     */
    public static final String GENERATION = "generation";

    /** Output field naming the outcome, as in {@link ExpiryWorkflow#OUTCOME}. */
    public static final String OUTCOME = ExpiryWorkflow.OUTCOME;
    /** Outcome: a one-second bucket's items were deleted (or found superseded). */
    public static final String OUTCOME_EXPIRED = "Expired";
    /** Outcome: a coarse bucket started the executions of the finer buckets it holds. */
    public static final String OUTCOME_CASCADED = "Cascaded";
    /** Outcome: the bucket is more than a horizon away; a successor execution carries the wait on. */
    public static final String OUTCOME_CONTINUED = ExpiryWorkflow.OUTCOME_CONTINUED;
    /** Output: items a one-second bucket held (after removing duplicates). */
    public static final String ITEMS = "items";
    /** Output: items a one-second bucket deleted. */
    public static final String EXPIRED = "expired";
    /** Output: items a one-second bucket found changed or gone. */
    public static final String SUPERSEDED = "superseded";
    /** Output: child buckets a coarse bucket started. */
    public static final String BUCKETS = "buckets";

    /** Substitution: the AWS partition in resource ARNs. */
    public static final String PARTITION = ExpiryWorkflow.PARTITION;
    /** Substitution: the bucket function's ARN (an alias ARN in AWS, so SnapStart applies). */
    public static final String BUCKET_FUNCTION_ARN = "BucketFunctionArn";

    /**
     * How long before a one-second bucket is due its execution wakes. A Wait state ends within about
     * 10 ms, but the function it then invokes may start cold (hundreds of milliseconds even with
     * SnapStart), so the execution arrives one second early; the function seals the bucket and reads
     * its entries at once, then waits for the instant itself, never deleting before it. A Wait
     * truncates to whole seconds, so one second is the smallest lead there is.
     */
    public static final Duration WARM_LEAD = Duration.ofSeconds(1);

    private BucketWorkflow() {
    }

    /** The substitutions {@code expire-bucket.asl.json} needs. */
    public static Map<String, String> substitutions(String partition, String bucketFunctionArn) {
        return Map.of(PARTITION, partition, BUCKET_FUNCTION_ARN, bucketFunctionArn);
    }
}
