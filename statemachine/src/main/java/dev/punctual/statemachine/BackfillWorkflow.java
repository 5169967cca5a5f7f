package dev.punctual.statemachine;

import java.time.Duration;
import java.util.Map;

/**
 * The facts {@code backfill.asl.json} relies on: its input fields and their defaults, the actions it
 * asks the backfill function for, the fields those actions exchange, its outcomes, its substitutions
 * and the backfill function's environment. The workflow scans a table in parallel segments and
 * schedules every item it reads the way the table's mode does; each segment's position lives in the
 * progress table ({@link BackfillProgressTable}), so a run stopped halfway and started again goes on
 * from there.
 */
public final class BackfillWorkflow {

    /** Input (required): the table to backfill. The only field a start needs. */
    public static final String TABLE = "table";
    /**
     * Input (optional): the table's TTL attribute. Default: the function's
     * {@link StreamWiring#ENV_TTL_ATTRIBUTE} when set (the construct sets it), else the attribute
     * DescribeTimeToLive names.
     */
    public static final String TTL_ATTRIBUTE = "ttlAttribute";
    /** Input (optional): parallel Scan segments of a new run, 1 to {@link #MAX_SEGMENTS}; a resumed run keeps its own. */
    public static final String SEGMENTS = "segments";
    /** Input (optional): items per Scan page, 1 to {@link #MAX_PAGE_SIZE}. */
    public static final String PAGE_SIZE = "pageSize";
    /** Input (optional): StartExecution calls per second, all segments together. */
    public static final String STARTS_PER_SECOND = "startsPerSecond";
    /** Input (optional): {@code true} abandons an unfinished run and scans the table from its start. */
    public static final String RESTART = "restart";

    /** Default {@link #SEGMENTS}: enough to keep StartExecution busy at the default rate, few enough for a small table. */
    public static final int DEFAULT_SEGMENTS = 8;
    /**
     * Most segments: an inline Map runs at most 40 iterations at once, and each segment is one
     * iteration looping over its pages.
     */
    public static final int MAX_SEGMENTS = 40;
    /**
     * Default {@link #PAGE_SIZE}. The Scan projects only the key and the TTL attribute, so a page of
     * 1,000 is some tens of KB, far under Scan's 1 MB; larger pages would only make a retried page
     * (all of it is scheduled again, harmlessly) longer.
     */
    public static final int DEFAULT_PAGE_SIZE = 1_000;
    /** Largest {@link #PAGE_SIZE}: what one invocation schedules within its time at the default rate. */
    public static final int MAX_PAGE_SIZE = 10_000;
    /**
     * Default {@link #STARTS_PER_SECOND}: a third of the StartExecution refill of the largest Regions
     * (300 a second; 150 elsewhere), so the stream handler, which shares the account's bucket, keeps
     * the rest while a table is adopted.
     */
    public static final double DEFAULT_STARTS_PER_SECOND = 100;
    /**
     * How long one page's scheduling may take at most: a page is cut to the items the segment's share
     * of {@link #STARTS_PER_SECOND} starts in this time, so a slow rate never runs a page into the
     * function's timeout.
     */
    public static final Duration PAGE_TIME_BUDGET = Duration.ofMinutes(2);
    /**
     * The backfill function's timeout (CDK): a page's {@link #PAGE_TIME_BUDGET} plus the throttling
     * back-off the function spends within its own invocation before it hands a page back for retry.
     */
    public static final Duration FUNCTION_TIMEOUT = Duration.ofMinutes(5);
    /** Memory of the backfill function: CPU for signing many small requests, as the other functions. */
    public static final int FUNCTION_MEMORY_MB = 1024;
    /**
     * History events one execution spends at most on its pages before it continues as a successor: a
     * Standard execution keeps at most 25,000, and each page costs seven (the Task's five, the loop's
     * Choice two), retries more.
     */
    public static final int HISTORY_EVENTS_FOR_PAGES = 17_500;
    /** History events one page costs: TaskStateEntered, Scheduled, Started, Succeeded, StateExited, and the Choice's two. */
    public static final int HISTORY_EVENTS_PER_PAGE = 7;

    /** Payload field: which step the function runs. */
    public static final String ACTION = "action";
    /** Action: validate the input, find the table's unfinished run or begin one, list its unfinished segments. */
    public static final String ACTION_PREPARE = "prepare";
    /** Action: scan one page of one segment from its saved position and schedule what it read. */
    public static final String ACTION_SCAN_PAGE = "scanPage";
    /** Action: close the run if every segment is done, else name the successor that carries it on. */
    public static final String ACTION_FINISH = "finish";
    /** Payload field of {@link #ACTION_PREPARE} and {@link #ACTION_FINISH}: the execution's input. */
    public static final String INPUT = "input";
    /** Payload field of {@link #ACTION_PREPARE} and {@link #ACTION_FINISH}: the execution's ARN. */
    public static final String EXECUTION = "execution";

    /** Prepared field: the run (its id, segments, TTL attribute, key attributes, page size, rate). */
    public static final String RUN = "run";
    /** Prepared field: the segments the Map iterates over, those of the run not yet done. */
    public static final String SEGMENT_LIST = "segmentList";
    /** Prepared field: pages each segment scans in this execution before it pauses for a successor. */
    public static final String PAGES_PER_SEGMENT = "pagesPerSegment";
    /** Prepared field: the mode items are scheduled in ({@link ExpiryMode#label()}). */
    public static final String MODE = "mode";
    /** Page field: the segment this iteration scans. */
    public static final String SEGMENT = "segment";
    /** Page field: pages this iteration may still scan in this execution. */
    public static final String PAGES_LEFT = "pagesLeft";
    /** Page field: whether the iteration scans another page now. */
    public static final String MORE = "more";
    /** Page field: what the last page did ({@link #SCANNED}, ...). */
    public static final String PAGE = "page";
    /** Page field: the segment's counts so far in this run. */
    public static final String SEGMENT_TOTALS = "segmentTotals";

    /** Count: items read from the table. */
    public static final String SCANNED = "scanned";
    /** Count: items handed to the mode's scheduling (an execution or an index entry now holds each). */
    public static final String SCHEDULED = "scheduled";
    /**
     * Count: items whose TTL had already passed: deleted at once (windowed mode) or given an execution
     * that deletes at once (per-item mode), as the stream handler does.
     */
    public static final String DELETED_NOW = "deletedNow";
    /** Count: items not scheduled: no TTL, a TTL native TTL would ignore, a key that cannot be used. */
    public static final String SKIPPED = "skipped";

    /** Finish field: whether every segment of the run is done. */
    public static final String COMPLETE = "complete";
    /** Finish field: the successor's execution name, when the run is not complete. */
    public static final String SUCCESSOR = "successor";
    /** Finish field: the successor's input: this execution's, without {@link #RESTART}. */
    public static final String SUCCESSOR_INPUT = "successorInput";
    /** Output field naming the outcome, as in {@link ExpiryWorkflow#OUTCOME}. */
    public static final String OUTCOME = ExpiryWorkflow.OUTCOME;
    /** Outcome: every segment of the run is done. */
    public static final String OUTCOME_BACKFILLED = "Backfilled";
    /** Outcome: this execution's share of pages is spent; a successor carries the run on. */
    public static final String OUTCOME_CONTINUED = ExpiryWorkflow.OUTCOME_CONTINUED;

    /**
     * The error the backfill function fails with when the input cannot be used (no such table, no TTL,
     * a value out of range): the Java class name, which is how Lambda names a Java function's error.
     * The workflow does not retry it: the same input would fail again.
     */
    public static final String ERROR_INPUT = "dev.punctual.backfill.BackfillInputException";

    /** Substitution: the AWS partition in resource ARNs. */
    public static final String PARTITION = ExpiryWorkflow.PARTITION;
    /** Substitution: the backfill function's ARN. */
    public static final String BACKFILL_FUNCTION_ARN = "BackfillFunctionArn";

    /** Backfill function: the progress table ({@link BackfillProgressTable}). */
    public static final String ENV_PROGRESS_TABLE = "PUNCTUAL_BACKFILL_PROGRESS_TABLE";
    /**
     * Backfill function, optional: the only table it may backfill (the construct's). Locally unset: the
     * runtime serves every table.
     */
    public static final String ENV_TABLE = "PUNCTUAL_BACKFILL_TABLE";

    /**
     * The custom resource that starts one run when a stack is first deployed, served by the backfill function
     * itself: CloudFormation sends it Create once, and Update and Delete start nothing.
     */
    public static final String ON_CREATE_RESOURCE_TYPE = "Custom::PunctualBackfillOnCreate";
    /** That resource's property: the backfill state machine to start. */
    public static final String ON_CREATE_STATE_MACHINE_ARN = "StateMachineArn";
    /** That resource's property: the table the run backfills. */
    public static final String ON_CREATE_TABLE = "Table";

    private BackfillWorkflow() {
    }

    /** The substitutions {@code backfill.asl.json} needs. */
    public static Map<String, String> substitutions(String partition, String backfillFunctionArn) {
        return Map.of(PARTITION, partition, BACKFILL_FUNCTION_ARN, backfillFunctionArn);
    }

    /** Pages each of {@code segments} segments may scan in one execution within {@link #HISTORY_EVENTS_FOR_PAGES}. */
    public static int pagesPerSegment(int segments) {
        return Math.max(1, HISTORY_EVENTS_FOR_PAGES / (HISTORY_EVENTS_PER_PAGE * segments));
    }
}
