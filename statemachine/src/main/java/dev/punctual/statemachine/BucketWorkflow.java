package dev.punctual.statemachine;

import java.time.Duration;
import java.util.Map;

/**
 * The facts windowed mode's two workflows rely on: {@code expire-bucket.asl.json} (Standard: one
 * execution per non-empty bucket, which waits until the bucket is due and then runs its runner) and
 * {@code run-bucket.asl.json} (Express: the runner, which steps through the bucket with the bucket
 * function, waiting between steps). The fields of their input, the runner's state, their
 * substitutions and the outcomes their output reports. The stream handler starts the bucket executions
 * and the bucket function receives the runner's state as its payload, so all read the names from here.
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
    /**
     * Input of a minute bucket (epoch seconds): the first second its runner works, when later than the
     * minute's start (absent otherwise). An execution planned for its first due second leaves the seconds
     * before it to the minute's early part.
     */
    public static final String FROM = "from";
    /**
     * Input of a minute bucket's early part (epoch seconds): the second its runner stops before, the
     * main part's {@link #FROM} (absent for the main part, which works to the minute's end).
     */
    public static final String UNTIL = "until";

    /**
     * Runner state: where the runner is between two steps (absent before its first step and in its
     * output). The runner's Choice ends the run when a step returns without it.
     */
    public static final String RUNNER = "runner";
    /** Runner state: {@code prepare} or {@code delete}. */
    public static final String RUNNER_PHASE = "phase";
    /** Runner state: the due second (epoch seconds) the next step is about. */
    public static final String RUNNER_TARGET = "target";
    /** Runner state: RFC 3339 UTC instant the runner's Wait ends before the next step. */
    public static final String RUNNER_AT = "at";
    /** Runner state: the due second after the target, or the bucket's end when none is known. */
    public static final String RUNNER_NEXT = "next";
    /** Runner state: the target's entries, read when it was prepared (absent when too many to carry). */
    public static final String RUNNER_ENTRIES = "entries";
    /** A carried entry: the item's key, as DynamoDB JSON. */
    public static final String ENTRY_KEY = "key";
    /** A carried entry: the TTL text its delete compares. */
    public static final String ENTRY_TTL = "ttl";

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
    /** Output (and runner state): due seconds a runner worked. */
    public static final String SECONDS = "seconds";

    /**
     * How many times the runner tries one step before it fails (its {@code Step} state's first try and
     * Retry's {@code MaxAttempts}); the bucket's execution then runs the whole runner again.
     */
    public static final int RUNNER_STEP_ATTEMPTS = 4;
    /** How many times the bucket's execution runs its runner before it fails (its {@code RunBucket} state's first try and retries). */
    public static final int BUCKET_RUN_ATTEMPTS = 9;

    /** Substitution: the AWS partition in resource ARNs. */
    public static final String PARTITION = ExpiryWorkflow.PARTITION;
    /** Substitution: the bucket function's ARN (an alias ARN in AWS, so SnapStart applies). */
    public static final String BUCKET_FUNCTION_ARN = "BucketFunctionArn";
    /** Substitution: the runner's (Express) state machine ARN, which the bucket machine runs with {@code .sync:2}. */
    public static final String BUCKET_RUNNER_ARN = "BucketRunnerArn";

    /**
     * How long before a due second the runner prepares it. A Wait state ends within about 10 ms, but
     * the function it then invokes may start cold (hundreds of milliseconds even with SnapStart), so the
     * runner arrives one second early: the function seals the second and reads its entries then, the
     * runner waits for the instant itself (a Wait, billed at 64 MB, not a function held at 1 GB), and at
     * the second the function only deletes, never before it. A Wait truncates to whole seconds, so one
     * second is the smallest lead there is.
     */
    public static final Duration WARM_LEAD = Duration.ofSeconds(1);

    private BucketWorkflow() {
    }

    /** The substitutions {@code expire-bucket.asl.json} needs: it runs the runner. */
    public static Map<String, String> substitutions(String partition, String bucketRunnerArn) {
        return Map.of(PARTITION, partition, BUCKET_RUNNER_ARN, bucketRunnerArn);
    }

    /** The substitutions {@code run-bucket.asl.json} needs: it invokes the bucket function. */
    public static Map<String, String> runnerSubstitutions(String partition, String bucketFunctionArn) {
        return Map.of(PARTITION, partition, BUCKET_FUNCTION_ARN, bucketFunctionArn);
    }
}
