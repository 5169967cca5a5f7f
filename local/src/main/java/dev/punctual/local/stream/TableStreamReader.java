package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.local.time.Timer;
import dev.punctual.local.time.TimerSleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamResponse;
import software.amazon.awssdk.services.dynamodb.model.ExpiredIteratorException;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.TrimmedDataAccessException;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Reads one table's stream the way the Lambda event source mapping does, on one thread: every shard,
 * a child only after its parent is finished; records filtered, batched (size and window), handed to the
 * function, retried, bisected and dead-lettered by the mapping's settings; checkpoints advanced as
 * records are processed. It paces itself and waits on the runtime's {@link Timer}, so a test on a manual
 * timer moves time for it instead of waiting.
 */
final class TableStreamReader implements Runnable {

    private static final System.Logger LOG = System.getLogger(TableStreamReader.class.getName());
    private static final int GET_RECORDS_LIMIT = 1000;
    private static final Duration DESCRIBE_INTERVAL = Duration.ofSeconds(1);
    private static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);

    private final WatchedTable table;
    private final DynamoDbStreamsClient streams;
    private final RequestHandler<DynamodbEvent, StreamsEventResponse> handler;
    private final FilterCriteria filter;
    private final MappingSettings settings;
    private final Checkpoints checkpoints;
    private final DeadLetters deadLetters;
    private final StreamPollerMetrics metrics;
    private final Clock clock;
    private final TimerSleeper pauses;
    private final String region;
    private final Map<String, ShardState> shards = new LinkedHashMap<>();
    private final BooleanSupplier enabled;
    private volatile boolean running = true;
    private Instant nextDescribe = Instant.MIN;

    /** A record read from the stream and not yet processed. */
    private record Fetched(String sequenceNumber, DynamodbStreamRecord record, boolean matches, Instant fetchedAt,
                           Instant arrival) {
    }

    /** Records to invoke together, with how often they were retried and invoked so far. */
    private record Unit(List<Fetched> records, int retries, int invocations, String functionError) {
    }

    private static final class ShardState {
        final String shardId;
        final String parentShardId;
        final Deque<Fetched> buffer = new ArrayDeque<>();
        String iterator;
        String lastRead;
        Instant nextFetch = Instant.MIN;
        boolean exhausted;
        boolean finished;

        ShardState(String shardId, String parentShardId, boolean finished) {
            this.shardId = shardId;
            this.parentShardId = parentShardId;
            this.finished = finished;
        }
    }

    TableStreamReader(WatchedTable table, DynamoDbStreamsClient streams,
                      RequestHandler<DynamodbEvent, StreamsEventResponse> handler, FilterCriteria filter,
                      MappingSettings settings, Checkpoints checkpoints, DeadLetters deadLetters,
                      StreamPollerMetrics metrics, Timer timer, String region, BooleanSupplier enabled) {
        this.enabled = enabled;
        this.table = table;
        this.streams = streams;
        this.handler = handler;
        this.filter = filter;
        this.settings = settings;
        this.checkpoints = checkpoints;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.clock = timer.clock();
        this.pauses = new TimerSleeper(timer);
        this.region = region;
    }

    WatchedTable table() {
        return table;
    }

    /** Asks the reader to stop after the step it is in; records not yet checkpointed are read again next time. */
    void stop() {
        running = false;
        pauses.abort();
    }

    @Override
    public void run() {
        while (running) {
            try {
                if (!enabled.getAsBoolean()) {
                    pause(settings.pollInterval());
                    continue;
                }
                if (due(nextDescribe)) {
                    describe();
                }
                boolean busy = false;
                for (ShardState shard : readyShards()) {
                    busy |= step(shard);
                    if (!running) {
                        return;
                    }
                }
                if (!busy) {
                    pause(settings.pollInterval());
                }
            } catch (ResourceNotFoundException e) {
                LOG.log(System.Logger.Level.INFO, "stream of table {0} is gone; stopped reading it", table.tableName());
                return;
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, "reading the stream of table " + table.tableName()
                        + " failed; retrying in " + ERROR_BACKOFF.toMillis() + " ms", e);
                resetIterators();
                pause(ERROR_BACKOFF);
            }
        }
    }

    private void describe() {
        String startAfter = null;
        do {
            String exclusiveStart = startAfter;
            DescribeStreamResponse response = streams.describeStream(b -> b.streamArn(table.streamArn())
                    .exclusiveStartShardId(exclusiveStart));
            for (Shard shard : response.streamDescription().shards()) {
                shards.computeIfAbsent(shard.shardId(), id -> new ShardState(id, shard.parentShardId(),
                        checkpoints.isFinished(table.streamArn(), id)));
            }
            startAfter = response.streamDescription().lastEvaluatedShardId();
        } while (startAfter != null);
        nextDescribe = clock.instant().plus(DESCRIBE_INTERVAL);
    }

    private List<ShardState> readyShards() {
        List<ShardState> ready = new ArrayList<>();
        for (ShardState shard : shards.values()) {
            if (shard.finished) {
                continue;
            }
            ShardState parent = shard.parentShardId == null ? null : shards.get(shard.parentShardId);
            // A parent no longer described has been trimmed: nothing of it is left to read first.
            if (parent == null || parent.finished) {
                ready.add(shard);
            }
        }
        return ready;
    }

    private boolean step(ShardState shard) {
        boolean progressed = false;
        if (!shard.exhausted && matching(shard) < settings.batchSize() && due(shard.nextFetch)) {
            progressed = fetch(shard);
        }
        return flush(shard) || progressed;
    }

    private boolean fetch(ShardState shard) {
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
        }
        Instant now = clock.instant();
        List<Record> records = response.records();
        for (Record record : records) {
            DynamodbStreamRecord lambda = StreamRecordConverter.toLambda(record, table.streamArn(), region);
            boolean matches = filter.matches(LambdaRecordJson.toJson(lambda));
            Instant arrival = record.dynamodb().approximateCreationDateTime();
            shard.buffer.addLast(new Fetched(record.dynamodb().sequenceNumber(), lambda, matches, now,
                    arrival == null ? now : arrival));
            shard.lastRead = record.dynamodb().sequenceNumber();
        }
        metrics.read(records.size());
        metrics.iteratorAge(records.isEmpty() ? 0
                : Duration.between(shard.buffer.peekLast().arrival(), now).toMillis());
        shard.iterator = response.nextShardIterator();
        // A short page means the shard is caught up: poll it again after the poll interval rather than
        // at once, as Lambda does, so reading a trickle of records does not crowd out the table's writes.
        shard.nextFetch = records.size() < GET_RECORDS_LIMIT ? now.plus(settings.pollInterval()) : now;
        if (shard.iterator == null) {
            shard.exhausted = true;
        }
        return !records.isEmpty();
    }

    private String openIterator(ShardState shard) {
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
        return streams.getShardIterator(b -> b.streamArn(table.streamArn()).shardId(shard.shardId)
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
    }

    private void resetIterators() {
        for (ShardState shard : shards.values()) {
            shard.iterator = null;
            shard.buffer.clear();
            shard.lastRead = null;
            shard.exhausted = false;
        }
        nextDescribe = Instant.MIN;
    }

    private boolean flush(ShardState shard) {
        if (shard.buffer.isEmpty()) {
            if (shard.exhausted) {
                checkpoints.finish(table.streamArn(), shard.shardId);
                shard.finished = true;
                nextDescribe = Instant.MIN;
                return true;
            }
            return false;
        }
        int matching = matching(shard);
        if (matching == 0) {
            metrics.filtered(shard.buffer.size());
            checkpoints.save(table.streamArn(), shard.shardId, shard.buffer.peekLast().sequenceNumber());
            shard.buffer.clear();
            return true;
        }
        if (!batchDue(shard, matching)) {
            return false;
        }
        List<Fetched> batch = new ArrayList<>();
        String lastTaken = null;
        int filteredOut = 0;
        while (batch.size() < settings.batchSize() && !shard.buffer.isEmpty()) {
            Fetched next = shard.buffer.pollFirst();
            lastTaken = next.sequenceNumber();
            if (next.matches()) {
                batch.add(next);
            } else {
                filteredOut++;
            }
        }
        metrics.filtered(filteredOut);
        if (process(shard, batch)) {
            checkpoints.save(table.streamArn(), shard.shardId, lastTaken);
        }
        return true;
    }

    private boolean batchDue(ShardState shard, int matching) {
        if (matching >= settings.batchSize() || shard.exhausted || settings.maximumBatchingWindowInSeconds() == 0) {
            return true;
        }
        Instant firstFetched = shard.buffer.stream().filter(Fetched::matches).findFirst().orElseThrow().fetchedAt();
        return !clock.instant().isBefore(firstFetched.plusSeconds(settings.maximumBatchingWindowInSeconds()));
    }

    /** Invokes the function until every record of the batch is processed; {@code false} if stopped first. */
    private boolean process(ShardState shard, List<Fetched> batch) {
        Deque<Unit> work = new ArrayDeque<>();
        work.push(new Unit(batch, 0, 0, null));
        while (!work.isEmpty()) {
            if (!running) {
                return false;
            }
            Unit unit = work.pop();
            List<Fetched> records = dropExpired(shard, unit);
            if (records.isEmpty()) {
                continue;
            }
            Invocation.Outcome outcome = Invocation.invoke(handler, lambdaRecords(records), table.tableName(), region, clock);
            metrics.invoked(records.size());
            int invocations = unit.invocations() + 1;
            if (outcome instanceof Invocation.Succeeded) {
                metrics.handled(records.size());
                checkpoints.save(table.streamArn(), shard.shardId, last(records).sequenceNumber());
            } else if (outcome instanceof Invocation.FailedFrom partial) {
                metrics.handled(partial.index());
                metrics.invocationFailed();
                if (partial.index() > 0) {
                    checkpoints.save(table.streamArn(), shard.shardId, records.get(partial.index() - 1).sequenceNumber());
                }
                retryOrGiveUp(shard, work, new Unit(records.subList(partial.index(), records.size()), unit.retries(),
                        invocations, null));
            } else {
                Invocation.FailedWhole whole = (Invocation.FailedWhole) outcome;
                metrics.invocationFailed();
                LOG.log(System.Logger.Level.WARNING, "function for table {0} failed a batch of {1} records: {2}",
                        table.tableName(), records.size(), whole.reason());
                if (settings.bisectBatchOnFunctionError() && records.size() > 1) {
                    // Splitting does not count as a retry (AWS: bisecting does not consume the retry quota).
                    int half = records.size() / 2;
                    work.push(new Unit(records.subList(half, records.size()), unit.retries(), invocations, whole.functionError()));
                    work.push(new Unit(records.subList(0, half), unit.retries(), invocations, whole.functionError()));
                } else {
                    retryOrGiveUp(shard, work, new Unit(records, unit.retries(), invocations, whole.functionError()));
                }
            }
        }
        return true;
    }

    private void retryOrGiveUp(ShardState shard, Deque<Unit> work, Unit failed) {
        int maximum = settings.maximumRetryAttempts();
        if (maximum != -1 && failed.retries() >= maximum) {
            deadLetter(shard, failed.records(), DeadLetter.RETRY_ATTEMPTS_EXHAUSTED, failed.invocations(),
                    failed.functionError());
            return;
        }
        pause(settings.retryDelay());
        work.push(new Unit(failed.records(), failed.retries() + 1, failed.invocations(), failed.functionError()));
    }

    private List<Fetched> dropExpired(ShardState shard, Unit unit) {
        if (settings.maximumRecordAgeInSeconds() == -1) {
            return unit.records();
        }
        Instant oldestAllowed = clock.instant().minusSeconds(settings.maximumRecordAgeInSeconds());
        int expired = 0;
        while (expired < unit.records().size() && unit.records().get(expired).arrival().isBefore(oldestAllowed)) {
            expired++;
        }
        if (expired > 0) {
            deadLetter(shard, unit.records().subList(0, expired), DeadLetter.RECORD_AGE_EXCEEDED, unit.invocations(),
                    unit.functionError());
        }
        return unit.records().subList(expired, unit.records().size());
    }

    private void deadLetter(ShardState shard, List<Fetched> records, String condition, int invocations,
                            String functionError) {
        DeadLetter letter = deadLetters.add(table, shard.shardId, condition, invocations, functionError,
                lambdaRecords(records));
        metrics.deadLettered(records.size());
        checkpoints.save(table.streamArn(), shard.shardId, last(records).sequenceNumber());
        LOG.log(System.Logger.Level.WARNING, "gave up on {0} records of table {1} ({2}); dead letter {3}",
                records.size(), table.tableName(), condition, letter.id());
    }

    /** Whether the timer's clock has reached {@code instant}. */
    private boolean due(Instant instant) {
        return !clock.instant().isBefore(instant);
    }

    private void pause(Duration duration) {
        try {
            pauses.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private static int matching(ShardState shard) {
        int count = 0;
        for (Fetched fetched : shard.buffer) {
            if (fetched.matches()) {
                count++;
            }
        }
        return count;
    }

    private static List<DynamodbStreamRecord> lambdaRecords(List<Fetched> records) {
        return records.stream().map(Fetched::record).toList();
    }

    private static Fetched last(List<Fetched> records) {
        return records.get(records.size() - 1);
    }
}
