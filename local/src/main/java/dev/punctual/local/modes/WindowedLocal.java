package dev.punctual.local.modes;

import dev.punctual.functions.BucketFunction;
import dev.punctual.functions.ExpirySettings;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.timeline.BucketPhaseRecorder;
import dev.punctual.names.BucketExecutionName;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.ExecutionStatusEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.windowed.BucketGenerations;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@link ExpiryMode#WINDOWED} on the local runtime, as the construct deploys it: the schedule index
 * table (one for every watched table), the expire-bucket state machine, the bucket runner's Express state
 * machine and the bucket function, in-process, and the two rules that heal buckets (a status-change rule and the sweep's schedule). Its pending work is what the index holds for buckets not yet worked ({@link IndexedPending}).
 * What only this mode has (the expire-bucket machine, the phases its bucket function reports) it hands
 * the runtime as {@link WindowedParts}.
 */
public final class WindowedLocal implements LocalMode {

    /** Name of the expire-bucket state machine on the local runtime. */
    public static final String STATE_MACHINE_NAME = "punctual-expire-bucket";
    /** Name of the bucket runner's (Express) state machine on the local runtime. */
    public static final String RUNNER_STATE_MACHINE_NAME = "punctual-run-bucket";
    /** Name of the in-process bucket function. */
    public static final String FUNCTION_NAME = "punctual-bucket";
    /** The bucket function's DynamoDB call sites are named after this in fault injection. */
    public static final String FUNCTION_CALLER = "bucket-function";
    /** The rule that hands the bucket function a bucket execution that ended unfinished. */
    public static final String HEALING_RULE = "punctual-bucket-healing";
    /** The scheduled rule that hands the bucket function the sweep. */
    public static final String SWEEP_RULE = "punctual-bucket-sweep";

    /** The thread the schedule index is swept on ({@link ScheduleIndexSweep}). */
    static final String INDEX_SWEEP_THREAD = "punctual-index-sweep";

    /** A scan of the index serves the console's overview for this long. */
    private static final Duration SCAN_REUSE = Duration.ofSeconds(1);

    @Override
    public Wired wire(Context context) {
        createScheduleIndex(context);
        String runnerArn = context.deployExpress(RUNNER_STATE_MACHINE_NAME,
                StateMachineDefinitions.runBucket(LocalAccount.PARTITION, context.functionArn(FUNCTION_NAME)));
        String stateMachineArn = context.deploy(STATE_MACHINE_NAME,
                StateMachineDefinitions.expireBucket(LocalAccount.PARTITION, runnerArn));
        Map<String, String> environment = bucketFunctionEnvironment(context, stateMachineArn);
        BucketPhaseRecorder bucketPhases = new BucketPhaseRecorder();
        BucketFunction function = context.register(new BucketFunction(
                context.functionParts(ExpirySettings.forBucketFunction(environment), FUNCTION_CALLER), bucketPhases));
        context.function(FUNCTION_NAME, StreamWiring.BUCKET_FUNCTION_MEMORY_MB, function);
        // Healing, as the construct deploys it: a bucket execution that ends unfinished is handed to the
        // function, which starts its successor; the sweep catches what no status change reached.
        context.eventRule(HEALING_RULE, ExecutionStatusEvents.unfinishedPattern(stateMachineArn), FUNCTION_NAME);
        context.scheduleRule(SWEEP_RULE, ExecutionStatusEvents.SWEEP_INTERVAL, FUNCTION_NAME);
        // In AWS native TTL removes the index's past; the runtime stops DynamoDB Local's, so it sweeps.
        context.register(new ScheduleIndexSweep(context.housekeepingDynamoDb(), ScheduleIndexTable.LOCAL_TABLE_NAME,
                context.retention(Retained.SCHEDULE_INDEX), context.timer(), context.ownThread(INDEX_SWEEP_THREAD),
                now -> oldestHeldStart(context, stateMachineArn, now)).start());
        return new Wired(stateMachineArn, Map.of("Schedule index", ScheduleIndexTable.LOCAL_TABLE_NAME), false,
                sources -> new IndexedItems(sources, stateMachineArn), new WindowedParts(stateMachineArn, bucketPhases));
    }

    /** The schedule index the handler writes each item's entry to, and where DynamoDB Local listens. */
    @Override
    public Map<String, String> handlerEnvironment(URI dynamoDbEndpoint) {
        return Map.of(StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME,
                StreamWiring.ENV_DYNAMODB_ENDPOINT, dynamoDbEndpoint.toString());
    }

    /**
     * The bucket function's environment, as the CDK construct sets it in Lambda, with the same bucket
     * delete concurrency. DynamoDB Local runs a table's deletes one at a time, so deletes beyond the
     * first queue on its lock; they are in flight all the same, as they would be in AWS.
     */
    static Map<String, String> bucketFunctionEnvironment(Context context, String stateMachineArn) {
        return Map.of(
                StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(context.bucketDeleteConcurrency()),
                StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn,
                StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME,
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, context.stepFunctionsEndpoint().toString(),
                StreamWiring.ENV_DYNAMODB_ENDPOINT, context.dynamoDbEndpoint().toString());
    }

    /**
     * The schedule index as the construct creates it in AWS (on-demand, TTL on its expiresAt); a data
     * directory from an earlier run may already hold it.
     */
    private static void createScheduleIndex(Context context) {
        if (context.createTable(ScheduleIndexTable.LOCAL_TABLE_NAME, ScheduleIndexTable.PARTITION_KEY,
                ScheduleIndexTable.SORT_KEY)) {
            context.dynamoDb().updateTimeToLive(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME)
                    .timeToLiveSpecification(t -> t.enabled(true).attributeName(ScheduleIndexTable.EXPIRES_AT)));
        }
    }

    /**
     * Where the oldest bucket that an expire-bucket execution may still read starts (epoch second), for
     * {@link ScheduleIndexSweep}: that of each running execution (whatever its level or table), and of
     * each that ended unfinished within the healing sweep's look-back and whose bucket's live generation
     * is running or still to be started by the healing rule or the sweep (not succeeded, not abandoned).
     * A running execution whose name is no bucket's (started by hand) holds everything while it runs.
     *
     * <p>The running ones are listed first, then each unfinished one's successors are followed to the
     * live generation as they stand then: a successor started after the first listing was started because
     * its predecessor had ended, so it is found from that predecessor, whenever it ended.
     */
    static long oldestHeldStart(Context context, String stateMachineArn, Instant now) {
        long oldest = Long.MAX_VALUE;
        for (ExecutionSummary running : context.executions(stateMachineArn, ExecutionStatus.RUNNING)) {
            Optional<BucketExecutionName> name = BucketExecutionName.parse(running.name());
            if (name.isEmpty()) {
                return Long.MIN_VALUE;
            }
            oldest = Math.min(oldest, name.get().bucket().start().getEpochSecond());
        }
        Instant lookback = now.minus(ExecutionStatusEvents.SWEEP_LOOKBACK);
        for (String status : ExecutionStatusEvents.UNFINISHED) {
            for (ExecutionSummary ended : context.executions(stateMachineArn, ExecutionStatus.valueOf(status))) {
                Optional<BucketExecutionName> name = BucketExecutionName.parse(ended.name());
                // The healing sweep leaves these alone too: too old, or not a bucket's generation.
                if (ended.stopDate() != null && !ended.stopDate().isBefore(lookback) && name.isPresent()
                        && liveGenerationMayRead(context, stateMachineArn, name.get())) {
                    oldest = Math.min(oldest, name.get().bucket().start().getEpochSecond());
                }
            }
        }
        return oldest;
    }

    /**
     * Whether the bucket whose generation {@code unfinished} ended unfinished has a live generation that
     * may still read it: one running, or one still to be started (no successor yet, not abandoned).
     */
    private static boolean liveGenerationMayRead(Context context, String stateMachineArn, BucketExecutionName unfinished) {
        BucketExecutionName ended = unfinished;
        while (ended.generation() < BucketGenerations.MAX_GENERATIONS) {
            BucketExecutionName successor = new BucketExecutionName(ended.bucket(), ended.early(), ended.hop(),
                    ended.generation() + 1);
            Optional<ExecutionStatus> status = context.executionStatus(Arns.execution(stateMachineArn, successor.toString()));
            if (status.isEmpty() || status.get() == ExecutionStatus.RUNNING) {
                return true;
            }
            if (status.get() == ExecutionStatus.SUCCEEDED) {
                return false;
            }
            ended = successor;
        }
        return false;
    }

    /**
     * The index's items whose one-second bucket is not sealed yet. A page is read afresh and its items
     * checked against the table (stale entries left out); counts reuse one scan for a second.
     */
    private static final class IndexedItems implements PendingWork {

        private final Sources sources;
        private final String stateMachineArn;
        private List<IndexedPending.Item> scan;
        private Instant scannedAt = Instant.MIN;

        IndexedItems(Sources sources, String stateMachineArn) {
            this.sources = sources;
            this.stateMachineArn = stateMachineArn;
        }

        @Override
        public Map<String, Integer> countsByTable() {
            Map<String, Integer> counts = new TreeMap<>();
            items(null, false).forEach(item -> counts.merge(item.table(), 1, Integer::sum));
            return counts;
        }

        @Override
        public int countDueBefore(Instant instant) {
            return (int) items(null, false).stream().filter(i -> i.expireAt().isBefore(instant)).count();
        }

        @Override
        public Page page(String table, String after, int limit) {
            int offset = parseOffset(after);
            List<IndexedPending.Item> all = items(table, true);
            IndexedPending index = new IndexedPending(sources.sfn(), sources.dynamoDb(), stateMachineArn,
                    ScheduleIndexTable.LOCAL_TABLE_NAME);
            int end = Math.min(all.size(), offset + limit);
            List<Row> rows = new ArrayList<>();
            for (IndexedPending.Item item : all.subList(Math.min(offset, end), end)) {
                if (!index.current(item)) {
                    continue;
                }
                // Between indexing an item and starting its bucket's execution, no execution reaches it yet.
                rows.add(new Row(item.expireAt(), item.table(), IndexedPending.keyJson(item.key()), item.ttl(), "bucket",
                        item.bucket(), IndexedPending.NO_RUNNING_BUCKET.equals(item.bucket()) ? null
                                : Arns.execution(stateMachineArn, item.bucket())));
            }
            return new Page(rows, all.size(), end < all.size() ? Integer.toString(end) : null);
        }

        private synchronized List<IndexedPending.Item> items(String table, boolean fresh) {
            Instant now = sources.clock().instant();
            if (fresh || scan == null || Duration.between(scannedAt, now).compareTo(SCAN_REUSE) > 0) {
                scan = new IndexedPending(sources.sfn(), sources.dynamoDb(), stateMachineArn,
                        ScheduleIndexTable.LOCAL_TABLE_NAME).items(null);
                scannedAt = now;
            }
            return table == null ? scan : scan.stream().filter(i -> i.table().equals(table)).toList();
        }

        private static int parseOffset(String after) {
            if (after == null || after.isEmpty()) {
                return 0;
            }
            try {
                return Math.max(0, Integer.parseInt(after));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'after' is not a position this console returned: " + after);
            }
        }

        @Override
        public void close() {
            // The clients belong to the console.
        }
    }
}
