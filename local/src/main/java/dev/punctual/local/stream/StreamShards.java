package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamResponse;
import software.amazon.awssdk.services.dynamodb.model.ExpiredIteratorException;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.TrimmedDataAccessException;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The shards of one table's stream and reading them in order, as the Lambda event source mapping
 * does: shards found by describing the stream (again every second, and at once when a shard finishes),
 * a child read only once its parent is finished, each read from after its checkpoint (or from the
 * oldest record left when that was trimmed), records converted, filtered and buffered in its
 * {@link ShardCursor}.
 */
final class StreamShards {

    private static final System.Logger LOG = System.getLogger(StreamShards.class.getName());
    static final int GET_RECORDS_LIMIT = 1000;
    private static final Duration DESCRIBE_INTERVAL = Duration.ofSeconds(1);

    private final WatchedTable table;
    private final DynamoDbStreamsClient streams;
    private final FilterCriteria filter;
    private final Duration pollInterval;
    private final Checkpoints checkpoints;
    private final StreamPollerMetrics metrics;
    private final Clock clock;
    private final String region;
    /** Whether records are stamped with the runtime's clock at reading rather than DynamoDB Local's wall clock. */
    private final boolean stampWithRuntimeClock;
    private final Map<String, ShardCursor> shards = new LinkedHashMap<>();
    private Instant nextDescribe = Instant.MIN;

    StreamShards(WatchedTable table, DynamoDbStreamsClient streams, FilterCriteria filter, Duration pollInterval,
                 Checkpoints checkpoints, StreamPollerMetrics metrics, Clock clock, String region,
                 boolean stampWithRuntimeClock) {
        this.table = table;
        this.streams = streams;
        this.filter = filter;
        this.pollInterval = pollInterval;
        this.checkpoints = checkpoints;
        this.metrics = metrics;
        this.clock = clock;
        this.region = region;
        this.stampWithRuntimeClock = stampWithRuntimeClock;
    }

    /** Makes every shard due for a read, and the stream for a describe, at once. */
    void lookNow() {
        nextDescribe = Instant.MIN;
        shards.values().forEach(shard -> shard.nextFetch = Instant.MIN);
    }

    /** The shards to read now: not finished, and with no unfinished parent. Describes the stream first when due. */
    List<ShardCursor> ready() {
        if (!clock.instant().isBefore(nextDescribe)) {
            describe();
        }
        List<ShardCursor> ready = new ArrayList<>();
        for (ShardCursor shard : shards.values()) {
            if (shard.finished) {
                continue;
            }
            ShardCursor parent = shard.parentShardId == null ? null : shards.get(shard.parentShardId);
            // A parent no longer described has been trimmed: nothing of it is left to read first.
            if (parent == null || parent.finished) {
                ready.add(shard);
            }
        }
        return ready;
    }

    private void describe() {
        String startAfter = null;
        do {
            String exclusiveStart = startAfter;
            DescribeStreamResponse response = streams.describeStream(b -> b.streamArn(table.streamArn())
                    .exclusiveStartShardId(exclusiveStart));
            for (Shard shard : response.streamDescription().shards()) {
                shards.computeIfAbsent(shard.shardId(), id -> new ShardCursor(id, shard.parentShardId(),
                        checkpoints.isFinished(table.streamArn(), id)));
            }
            startAfter = response.streamDescription().lastEvaluatedShardId();
        } while (startAfter != null);
        nextDescribe = clock.instant().plus(DESCRIBE_INTERVAL);
    }

    /**
     * Reads the next page of {@code shard} into its buffer.
     *
     * @return whether anything was read (or the iterator had to be opened again)
     */
    boolean fetch(ShardCursor shard) {
        if (shard.iterator == null) {
            shard.iterator = openIterator(shard);
        }
        GetRecordsResponse response;
        try {
            String iterator = shard.iterator;
            response = streams.getRecords(b -> b.shardIterator(iterator).limit(GET_RECORDS_LIMIT));
        } catch (ExpiredIteratorException e) {
            shard.iterator = openIterator(shard);
            return true;
        } catch (TrimmedDataAccessException e) {
            // The iterator points before the shard's oldest record. In AWS the records in between were trimmed;
            // DynamoDB Local also answers so when the iterator was opened on an empty shard and other tables'
            // records took the sequence numbers in between (they count for every table at once), as they do
            // for the child shard it opens four hours after a stream's first. Either way no record is left
            // between what was read and the oldest record: reading on from there loses nothing and reads
            // nothing twice. Retrying the same iterator would fail the same way.
            LOG.log(System.Logger.Level.INFO, "table {0} shard {1}: nothing left between the iterator and the"
                    + " shard''s oldest record (TrimmedDataAccessException); reading on from the oldest record",
                    table.tableName(), shard.shardId);
            shard.iterator = trimHorizon(shard);
            return true;
        }
        Instant now = clock.instant();
        List<Record> records = response.records();
        String eventSourceArn = table.eventSourceArn(region);
        for (Record read : records) {
            Record record = stampWithRuntimeClock ? stamped(read, now) : read;
            DynamodbStreamRecord lambda = StreamRecordConverter.toLambda(record, eventSourceArn, region);
            boolean matches = filter.matches(LambdaRecordJson.toJson(lambda));
            Instant arrival = record.dynamodb().approximateCreationDateTime();
            shard.buffer.addLast(new FetchedRecord(record.dynamodb().sequenceNumber(), lambda, matches, now,
                    arrival == null ? now : arrival));
            shard.lastRead = record.dynamodb().sequenceNumber();
        }
        metrics.read(records.size());
        metrics.iteratorAge(records.isEmpty() ? 0
                : Duration.between(shard.buffer.peekLast().arrival(), now).toMillis());
        shard.iterator = response.nextShardIterator();
        // A short page means the shard is caught up: poll it again after the poll interval rather than
        // at once, as Lambda does, so reading a trickle of records does not crowd out the table's writes.
        shard.nextFetch = records.size() < GET_RECORDS_LIMIT ? now.plus(pollInterval) : now;
        if (shard.iterator == null) {
            shard.exhausted = true;
        }
        return !records.isEmpty();
    }

    /**
     * {@code record} with its {@code ApproximateCreationDateTime} set to {@code now}, the runtime's
     * instant when the mapping read it. DynamoDB Local stamps records with the wall clock (rounded down
     * to the minute); on a runtime whose clock a test moves, that stamp is hours or years away from the
     * runtime's time, and the handler, which compares it with the TTL to tell Punctual's own delete from
     * an application's early one, would take every expiry for an early delete. Read at once on a clock
     * that only moves when the test moves it, the instant of reading is the instant of writing.
     */
    private static Record stamped(Record record, Instant now) {
        if (record.dynamodb() == null) {
            return record;
        }
        return record.toBuilder().dynamodb(record.dynamodb().toBuilder().approximateCreationDateTime(now).build()).build();
    }

    private String openIterator(ShardCursor shard) {
        String after = shard.lastRead != null ? shard.lastRead
                : checkpoints.lastProcessed(table.streamArn(), shard.shardId).orElse(null);
        if (after != null) {
            try {
                return streams.getShardIterator(b -> b.streamArn(table.streamArn()).shardId(shard.shardId)
                        .shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER).sequenceNumber(after)).shardIterator();
            } catch (TrimmedDataAccessException e) {
                LOG.log(System.Logger.Level.WARNING, "records of table {0} shard {1} after the checkpoint were trimmed"
                        + " from the stream; reading from the oldest record left", table.tableName(), shard.shardId);
            }
        }
        return trimHorizon(shard);
    }

    private String trimHorizon(ShardCursor shard) {
        return streams.getShardIterator(b -> b.streamArn(table.streamArn()).shardId(shard.shardId)
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
    }

    /** Marks an exhausted shard whose every record is processed finished, and looks for its children at once. */
    void finish(ShardCursor shard) {
        checkpoints.finish(table.streamArn(), shard.shardId);
        shard.finished = true;
        nextDescribe = Instant.MIN;
    }

    /** After an error: forgets what was read and not checkpointed, and reads every shard again from its checkpoint. */
    void reset() {
        for (ShardCursor shard : shards.values()) {
            shard.iterator = null;
            shard.buffer.clear();
            shard.lastRead = null;
            shard.exhausted = false;
        }
        nextDescribe = Instant.MIN;
    }
}
