package dev.punctual.local.modes;

import dev.punctual.functions.DynamoDbScheduleIndex;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.Chore;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The local runtime's stand-in for the native TTL that removes windowed mode's schedule index items in
 * AWS ({@link ScheduleIndexTable#RETENTION}): the runtime stops DynamoDB Local's TTL job, so without this
 * the index would grow by one item per stream batch and due second for as long as the runtime runs.
 * Every {@link #INTERVAL} it deletes the entries and seals (the minute's {@code early} mark included) of
 * buckets that are over, bounded as {@code --retain schedule-index} says: none kept longer than its age
 * after its bucket ended, and no more than its count of them, the oldest going first.
 *
 * <p><b>What may go.</b> A minute of a table, its entry partition and every seal whose bucket ends with
 * it (its seconds' one-second fallbacks, the minute's seal and early mark, the hour's and the day's when
 * it is their last minute), goes only once it ended at or before both
 * <ul>
 *   <li>{@link #SETTLED} ago: a stream handler (or backfill) indexes an item only for a second still to
 *       come when it decided, then starts the bucket's execution; its invocation lasts at most
 *       {@link StreamWiring#FUNCTION_TIMEOUT}, so once a minute ended {@code SETTLED} ago every entry
 *       for it has been written and every execution that will read it has been started (a retried
 *       record finds its TTL past and deletes the item at once, without the index);</li>
 *   <li>the start of the oldest bucket some execution can still read ({@link Holds}): a running bucket
 *       execution of any level and table (a retried or resumed one, one waiting out a generation's
 *       back-off), and one that ended unfinished and whose successor is still to be started by the
 *       healing rule or the sweep. Every reader of an entry or seal runs inside such an execution: a
 *       minute's runner is a child its bucket execution waits for; an hour's or a day's cascade reads
 *       the minutes within it, which start at or after its start; a successor reads what its
 *       predecessor would have. Its bucket holds everything of its own and after it.</li>
 * </ul>
 * The count bound applies to what may go: index items of buckets still to come, or still read, are
 * pending work, which the runtime never forgets.
 *
 * <p><b>How it reads.</b> Once, at the first run, a scan of the partition keys finds the minutes that
 * hold anything; after that each table's minutes are read one at a time as they end (one Query of the
 * entry partition's keys, one BatchGetItem of the minute's possible seals) and only counted; a minute is
 * read again when it goes, its items deleted 25 to a BatchWriteItem. A run does at most
 * {@link #MINUTES_PER_RUN} minutes and {@link #DELETES_PER_RUN} deletes, each request a short one, so
 * DynamoDB Local's single database thread is never held long; a run that stopped at a budget is followed
 * by the next {@link #CATCH_UP} later.
 */
final class ScheduleIndexSweep implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ScheduleIndexSweep.class.getName());

    /** How often the index is swept: a minute is the unit it grows by. */
    static final Duration INTERVAL = Duration.ofMinutes(1);
    /** When a run stopped at its budget, the next comes this soon. */
    static final Duration CATCH_UP = Duration.ofSeconds(1);
    /**
     * How long after a minute ends it may first go: longer than any stream handler invocation
     * ({@link StreamWiring#FUNCTION_TIMEOUT}, 2 minutes) that may still write an entry for it or start
     * its execution, with room to spare.
     */
    static final Duration SETTLED = StreamWiring.FUNCTION_TIMEOUT.plus(Duration.ofMinutes(3));
    /** Minutes read per run at most. */
    static final int MINUTES_PER_RUN = 240;
    /** Items deleted per run at most (a second's work of DynamoDB Local or so). */
    static final int DELETES_PER_RUN = 10_000;
    /** DynamoDB's limit of writes per BatchWriteItem. */
    private static final int WRITES_PER_BATCH = 25;
    private static final long MINUTE = BucketLevel.MINUTE.width();

    /** Where the buckets that executions may still read begin. */
    @FunctionalInterface
    interface Holds {
        /**
         * The start (epoch second) of the oldest bucket an execution may still read at {@code now}:
         * {@link Long#MAX_VALUE} when none may, {@link Long#MIN_VALUE} when any may.
         */
        long oldestHeldStart(Instant now);
    }

    /** A minute of a table that is over, and how many index items it holds. */
    private record PastMinute(long start, String table, int items) {
    }

    private final DynamoDbClient dynamoDb;
    private final String indexTable;
    private final Retention retention;
    private final Timer timer;
    private final Executor executor;
    private final Holds holds;

    /** Guarded by this: the sweep's state, touched by one run at a time. */
    private boolean scanned;
    /** Per table, minutes a scan found holding anything, all before {@link #nextMinute}, still to be read. */
    private final Map<String, NavigableSet<Long>> scannedMinutes = new HashMap<>();
    /**
     * Per table, the next minute to read in order: every minute before it was read, or a scan found it
     * empty (and {@link #SETTLED} keeps anything new from being written to it), or is in {@link #scannedMinutes}.
     */
    private final Map<String, Long> nextMinute = new HashMap<>();
    /** When tables were last listed: a table first listed later was created since. */
    private Instant listedAt;
    private final NavigableSet<PastMinute> past = new TreeSet<>(
            Comparator.comparingLong(PastMinute::start).thenComparing(PastMinute::table));
    private long pastItems;
    private long deleted;

    private volatile Chore chore;

    /**
     * @param dynamoDb a client of the runtime's own, unbilled and never failing by injection
     * @param executor where runs go, off the timer's thread
     */
    ScheduleIndexSweep(DynamoDbClient dynamoDb, String indexTable, Retention retention, Timer timer, Executor executor,
            Holds holds) {
        this.dynamoDb = Objects.requireNonNull(dynamoDb, "dynamoDb");
        this.indexTable = Objects.requireNonNull(indexTable, "indexTable");
        this.retention = Objects.requireNonNull(retention, "retention");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.holds = Objects.requireNonNull(holds, "holds");
    }

    /** Starts sweeping: the first run at once, then every {@link #INTERVAL}. */
    ScheduleIndexSweep start() {
        chore = Chore.start("Schedule index sweep", timer, executor, Duration.ZERO, INTERVAL,
                () -> sweep(timer.clock().instant()) ? CATCH_UP : INTERVAL);
        return this;
    }

    /** One run at {@code now}; true when it stopped at a budget with more to do. */
    synchronized boolean sweep(Instant now) {
        if (!scanned) {
            scan(now);
        }
        listTables(now);
        long limit = Math.min(now.minus(SETTLED).getEpochSecond(), holds.oldestHeldStart(now));
        long deletedBefore = deleted;
        boolean more = count(now, limit);
        more = delete(now, limit) || more;
        LOG.log(System.Logger.Level.DEBUG, () -> "Schedule index swept: " + (deleted - deletedBefore) + " items deleted, "
                + pastItems + " of buckets over kept, buckets ending by " + Instant.ofEpochSecond(
                        Math.max(Instant.MIN.getEpochSecond(), Math.min(Instant.MAX.getEpochSecond(), limit))) + " may go");
        return more;
    }

    /** Index items of buckets over and not held, counted but not deleted yet. */
    synchronized long pastItems() {
        return pastItems;
    }

    /** Index items deleted since the start. */
    synchronized long deleted() {
        return deleted;
    }

    /**
     * A scan of partition keys: which minutes of which table, not read yet, hold anything. The first run
     * makes one; so does a run that finds a table's minutes more than a run's budget behind (the clock
     * jumped: a machine woken from sleep, a test skipping time), where reading each minute would cost more
     * than reading the index once, which the bounds keep small.
     */
    private void scan(Instant now) {
        long from = BucketLevel.MINUTE.startOf(now.minus(SETTLED).getEpochSecond());
        Map<String, AttributeValue> after = null;
        do {
            Map<String, AttributeValue> start = after;
            ScanResponse page = dynamoDb.scan(r -> r.tableName(indexTable).limit(1_000)
                    .projectionExpression("#p").expressionAttributeNames(Map.of("#p", ScheduleIndexTable.PARTITION_KEY))
                    .exclusiveStartKey(start));
            for (Map<String, AttributeValue> item : page.items()) {
                String partition = item.get(ScheduleIndexTable.PARTITION_KEY).s();
                Optional<Bucket> sealed = DynamoDbScheduleIndex.sealedBucket(partition);
                // A seal is read with the last minute of its bucket: the bucket ends with it.
                String table = sealed.map(Bucket::table).orElseGet(() -> DynamoDbScheduleIndex.entryTable(partition));
                long minute = sealed.map(b -> BucketLevel.MINUTE.startOf(b.end() - 1))
                        .orElseGet(() -> Long.parseLong(partition.substring(partition.lastIndexOf('|') + 1)));
                if (minute < from && minute >= nextMinute.getOrDefault(table, Long.MIN_VALUE)) {
                    scannedMinutes.computeIfAbsent(table, t -> new TreeSet<>()).add(minute);
                }
            }
            after = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (after != null);
        // Whatever is written from now on is for seconds after an invocation that began at most SETTLED ago.
        scannedMinutes.keySet().forEach(table -> nextMinute.merge(table, from, Math::max));
        nextMinute.replaceAll((table, next) -> Math.max(next, from));
        if (!scanned) {
            listedAt = now;
            scanned = true;
        }
    }

    /**
     * Tables the scan did not find: one first listed now was created since the last listing, so its
     * entries are for seconds after that, less an invocation's {@link #SETTLED}.
     */
    private void listTables(Instant now) {
        long from = BucketLevel.MINUTE.startOf(listedAt.minus(SETTLED).getEpochSecond());
        String start = null;
        do {
            String exclusiveStart = start;
            var page = dynamoDb.listTables(r -> r.exclusiveStartTableName(exclusiveStart));
            for (String table : page.tableNames()) {
                if (!table.equals(indexTable)) {
                    nextMinute.putIfAbsent(table, from);
                }
            }
            start = page.lastEvaluatedTableName();
        } while (start != null);
        listedAt = now;
    }

    /** Reads the minutes that ended by {@code limit}, oldest first per table; true if the budget ran out. */
    private boolean count(Instant now, long limit) {
        if (nextMinute.values().stream().anyMatch(next -> limit - next > MINUTES_PER_RUN * MINUTE)) {
            scan(now);
        }
        int budget = MINUTES_PER_RUN;
        for (Map.Entry<String, Long> table : nextMinute.entrySet()) {
            NavigableSet<Long> scannedOnes = scannedMinutes.getOrDefault(table.getKey(), new TreeSet<>());
            while (!scannedOnes.isEmpty() && scannedOnes.first() + MINUTE <= limit) {
                if (budget-- == 0) {
                    return true;
                }
                countMinute(table.getKey(), scannedOnes.pollFirst());
            }
            while (scannedOnes.isEmpty() && table.getValue() + MINUTE <= limit) {
                if (budget-- == 0) {
                    return true;
                }
                countMinute(table.getKey(), table.getValue());
                table.setValue(table.getValue() + MINUTE);
            }
        }
        return false;
    }

    private void countMinute(String table, long minute) {
        int items = entryKeys(table, minute).size() + sealKeys(table, minute).size();
        if (items > 0) {
            past.add(new PastMinute(minute, table, items));
            pastItems += items;
        }
    }

    /**
     * Deletes minutes that ended by {@code limit}, oldest first, while the oldest is past the age or more
     * than the count are kept; true if the budget ran out.
     */
    private boolean delete(Instant now, long limit) {
        long ageLimit = now.minus(retention.age()).getEpochSecond();
        int deletedThisRun = 0;
        while (!past.isEmpty()) {
            PastMinute oldest = past.first();
            long end = oldest.start() + MINUTE;
            // The bound on what executions hold can move back (a failed bucket seen since), never the rest.
            if (end > limit || (end > ageLimit && pastItems <= retention.count())) {
                return false;
            }
            if (deletedThisRun >= DELETES_PER_RUN) {
                return true;
            }
            List<Map<String, AttributeValue>> keys = new ArrayList<>(entryKeys(oldest.table(), oldest.start()));
            keys.addAll(sealKeys(oldest.table(), oldest.start()));
            for (int from = 0; from < keys.size(); from += WRITES_PER_BATCH) {
                deleteAll(keys.subList(from, Math.min(keys.size(), from + WRITES_PER_BATCH)));
            }
            past.pollFirst();
            pastItems -= oldest.items();
            deleted += keys.size();
            deletedThisRun += keys.size();
        }
        return false;
    }

    /** The keys of a minute's entries, a page at a time. */
    private List<Map<String, AttributeValue>> entryKeys(String table, long minute) {
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        Map<String, AttributeValue> partition = Map.of(":p",
                AttributeValue.fromS(DynamoDbScheduleIndex.entryPartition(table, minute)));
        Map<String, AttributeValue> after = null;
        do {
            Map<String, AttributeValue> start = after;
            QueryResponse page = dynamoDb.query(r -> r.tableName(indexTable).consistentRead(true).limit(1_000)
                    .keyConditionExpression("#p = :p").expressionAttributeValues(partition)
                    .projectionExpression("#p, #s").expressionAttributeNames(Map.of(
                            "#p", ScheduleIndexTable.PARTITION_KEY, "#s", ScheduleIndexTable.SORT_KEY))
                    .exclusiveStartKey(start));
            keys.addAll(page.items());
            after = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (after != null);
        return keys;
    }

    /**
     * The keys of the seals that exist of buckets ending with this minute: its seconds' one-second
     * fallbacks, the minute's seal and early mark, the hour's and the day's at their last minute.
     */
    private List<Map<String, AttributeValue>> sealKeys(String table, long minute) {
        List<Map<String, AttributeValue>> candidates = new ArrayList<>();
        for (long second = minute; second < minute + MINUTE; second++) {
            candidates.add(sealKey(new Bucket(table, BucketLevel.SECOND, second), ScheduleIndexTable.SEAL_SORT_KEY));
        }
        Bucket minuteBucket = new Bucket(table, BucketLevel.MINUTE, minute);
        candidates.add(sealKey(minuteBucket, ScheduleIndexTable.SEAL_SORT_KEY));
        candidates.add(sealKey(minuteBucket, ScheduleIndexTable.EARLY_MARK_SORT_KEY));
        for (BucketLevel coarse : List.of(BucketLevel.HOUR, BucketLevel.DAY)) {
            Bucket bucket = Bucket.containing(table, coarse, minute);
            if (bucket.end() == minute + MINUTE) {
                candidates.add(sealKey(bucket, ScheduleIndexTable.SEAL_SORT_KEY));
            }
        }
        List<Map<String, AttributeValue>> found = new ArrayList<>();
        Map<String, KeysAndAttributes> request = Map.of(indexTable, KeysAndAttributes.builder().keys(candidates)
                .consistentRead(true).projectionExpression("#p, #s").expressionAttributeNames(Map.of(
                        "#p", ScheduleIndexTable.PARTITION_KEY, "#s", ScheduleIndexTable.SORT_KEY)).build());
        while (!request.isEmpty()) {
            Map<String, KeysAndAttributes> asked = request;
            BatchGetItemResponse response = dynamoDb.batchGetItem(r -> r.requestItems(asked));
            found.addAll(response.responses().getOrDefault(indexTable, List.of()));
            request = response.hasUnprocessedKeys() ? response.unprocessedKeys() : Map.of();
        }
        return found;
    }

    private static Map<String, AttributeValue> sealKey(Bucket bucket, String sortKey) {
        return Map.of(ScheduleIndexTable.PARTITION_KEY, AttributeValue.fromS(DynamoDbScheduleIndex.sealPartition(bucket)),
                ScheduleIndexTable.SORT_KEY, AttributeValue.fromS(sortKey));
    }

    /** Deletes up to 25 items, writing again what DynamoDB leaves unprocessed. */
    private void deleteAll(List<Map<String, AttributeValue>> keys) {
        List<WriteRequest> writes = keys.stream()
                .map(key -> WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(key).build()).build())
                .toList();
        Map<String, List<WriteRequest>> request = Map.of(indexTable, writes);
        while (!request.isEmpty()) {
            Map<String, List<WriteRequest>> asked = request;
            BatchWriteItemResponse response = dynamoDb.batchWriteItem(r -> r.requestItems(asked));
            request = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
        }
    }

    @Override
    public void close() {
        Chore started = chore;
        if (started != null) {
            started.close();
        }
    }
}
