package dev.punctual.statemachine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How a table's stream is wired to the expiry function: the function's environment variable names,
 * the event source mapping's filter patterns and defaults. CDK, the handler and the local stream
 * poller all read them from here, so the cloud and the embedded runtime cannot drift apart.
 */
public final class StreamWiring {

    /** Required: ARN of the {@code expire-item} state machine. */
    public static final String ENV_STATE_MACHINE_ARN = "PUNCTUAL_STATE_MACHINE_ARN";
    /** Required: name of the table's TTL attribute. */
    public static final String ENV_TTL_ATTRIBUTE = "PUNCTUAL_TTL_ATTRIBUTE";
    /** Optional: Step Functions endpoint override (the local runtime), e.g. {@code http://127.0.0.1:8083}. */
    public static final String ENV_STEP_FUNCTIONS_ENDPOINT = "PUNCTUAL_STEP_FUNCTIONS_ENDPOINT";
    /** Optional: StartExecution calls in flight at once within one batch. */
    public static final String ENV_MAX_CONCURRENCY = "PUNCTUAL_MAX_CONCURRENCY";
    /** Optional: {@code true}/{@code false}, stop executions made stale by a TTL change or a delete. */
    public static final String ENV_CANCEL_STALE = "PUNCTUAL_CANCEL_STALE";

    /** Optional: {@code per-item} (default) or {@code windowed}; see {@link ExpiryMode}. */
    public static final String ENV_MODE = "PUNCTUAL_MODE";
    /** Windowed mode: name of the schedule index table ({@link ScheduleIndexTable}). */
    public static final String ENV_SCHEDULE_TABLE = "PUNCTUAL_SCHEDULE_TABLE";
    /** Optional: DynamoDB endpoint override (the local runtime), e.g. {@code http://127.0.0.1:8000}. */
    public static final String ENV_DYNAMODB_ENDPOINT = "PUNCTUAL_DYNAMODB_ENDPOINT";

    /** Default for {@link #ENV_MAX_CONCURRENCY}. */
    public static final int DEFAULT_MAX_CONCURRENCY = 16;
    /**
     * The bucket function's default for {@link #ENV_MAX_CONCURRENCY}, the bucket delete concurrency:
     * deletes in flight at once. A DeleteItem takes a few milliseconds in AWS, so 64 at once delete a
     * thousand items in about a hundred milliseconds; the function's DynamoDB client keeps at least as
     * many connections. The construct's {@code bucketDeleteConcurrency} and the local runtime's
     * {@code --bucket-delete-concurrency} both default to it, so local figures pace deletes as a
     * deployment does.
     */
    public static final int DEFAULT_BUCKET_CONCURRENCY = 64;
    /** Upper bound for {@link #ENV_MAX_CONCURRENCY}: beyond it the StartExecution throttle bites first. */
    public static final int MAX_MAX_CONCURRENCY = 256;

    /**
     * Memory of the stream function. The CDK construct configures it, and the local runtime bills
     * its in-process invocations at it.
     */
    public static final int STREAM_FUNCTION_MEMORY_MB = 1024;
    /**
     * Memory of windowed mode's bucket function. It wakes a second before its bucket and must have
     * issued up to a few thousand conditional deletes within the bucket's second; signing and TLS
     * for that many requests are CPU-bound, and Lambda's CPU grows with memory, so 1,024 MB
     * (~0.6 vCPU, as for the stream function) rather than 512 MB: CPU-bound work finishes about
     * twice as fast for about the same GB-seconds. The CDK construct configures it; the local
     * runtime bills its in-process invocations at it.
     */
    public static final int BUCKET_FUNCTION_MEMORY_MB = 1024;

    /**
     * The bucket function's timeout: 15 s under the runner's {@code Step} Task's {@code TimeoutSeconds}
     * (255) in {@code run-bucket.asl.json}, so a function that runs out of time fails as itself
     * ({@code Lambda.Unknown}) before the Task times out. The local runtime's injected timeouts end here.
     */
    public static final Duration BUCKET_FUNCTION_TIMEOUT = Duration.ofSeconds(240);
    /**
     * The function's timeout (Lambda's {@code Timeout}): CDK deploys it, the handler plans its retries
     * within what is left of it, and the local runtime's Lambda context counts down from it.
     */
    public static final Duration FUNCTION_TIMEOUT = Duration.ofMinutes(2);

    /** Event source mapping default: records per batch. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** Event source mapping default: retries of a failing batch before it goes to the dead-letter queue. */
    public static final int DEFAULT_MAX_RETRY_ATTEMPTS = 10;
    /** Event source mapping default: records older than this go to the dead-letter queue. */
    public static final Duration DEFAULT_MAX_RECORD_AGE = Duration.ofHours(24);

    /**
     * A TTL attribute name that can be embedded in a filter pattern and an expression attribute name:
     * DynamoDB allows 1 to 255 bytes; quotes and backslashes would need escaping in the pattern JSON,
     * and nobody names a TTL attribute that way, so they are refused.
     */
    private static final Pattern SAFE_ATTRIBUTE_NAME = Pattern.compile("[^\"\\\\\\p{Cntrl}]{1,255}");

    private StreamWiring() {
    }

    /**
     * Filter patterns (EventBridge syntax, as {@code FilterCriteria} takes them) that let through
     * exactly the records that can need work, so the function is not invoked for the rest:
     * <ol>
     *   <li>a new image whose TTL is a Number: schedule;</li>
     *   <li>a new image whose TTL is a String: a common mistake, passed so the function can log it;</li>
     *   <li>with {@code oldImages}, an old image whose TTL was a Number: the TTL changed or went away,
     *       or the item was deleted, so the old execution may need stopping; and a delete at the TTL is
     *       how the handler measures the lag of Punctual's own deletes ({@link ExpiryMetricNames}).</li>
     * </ol>
     * Deployments pass {@code true} in both modes: without old images no lag is measured.
     */
    public static List<String> filterPatterns(String ttlAttribute, boolean oldImages) {
        requireSafeAttributeName(ttlAttribute);
        List<String> patterns = new ArrayList<>(3);
        patterns.add(imagePattern("NewImage", ttlAttribute, "N"));
        patterns.add(imagePattern("NewImage", ttlAttribute, "S"));
        if (oldImages) {
            patterns.add(imagePattern("OldImage", ttlAttribute, "N"));
        }
        return List.copyOf(patterns);
    }

    /** Checks a TTL attribute name can be used in patterns and expressions. */
    public static String requireSafeAttributeName(String ttlAttribute) {
        if (ttlAttribute == null || !SAFE_ATTRIBUTE_NAME.matcher(ttlAttribute).matches()) {
            throw new IllegalArgumentException("TTL attribute name must be 1-255 characters without quotes,"
                    + " backslashes or control characters, got " + (ttlAttribute == null ? "null" : "'" + ttlAttribute + "'"));
        }
        return ttlAttribute;
    }

    private static String imagePattern(String image, String attribute, String type) {
        return "{\"dynamodb\":{\"" + image + "\":{\"" + attribute + "\":{\"" + type + "\":[{\"exists\":true}]}}}}";
    }
}
