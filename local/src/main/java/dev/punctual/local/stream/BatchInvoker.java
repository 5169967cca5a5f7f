package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Hands one batch to the function and applies the mapping's error handling until every record of it
 * is processed: partial batch failures retried from the first failed record (as a new batch, with retries
 * of its own, when records before it succeeded and the checkpoint moved), whole failures bisected
 * (when the mapping says so) or retried after the retry delay, records older than the maximum age and
 * batches out of retries dead-lettered. The shard's checkpoint moves past each record handled or
 * given up on.
 */
final class BatchInvoker {

    private static final System.Logger LOG = System.getLogger(BatchInvoker.class.getName());

    private final WatchedTable table;
    private final RequestHandler<DynamodbEvent, StreamsEventResponse> handler;
    private final MappingSettings settings;
    private final Checkpoints checkpoints;
    private final DeadLetters deadLetters;
    private final StreamPollerMetrics metrics;
    private final Clock clock;
    private final String region;
    private final Consumer<Duration> pause;
    private final BooleanSupplier running;

    /** Records to invoke together, with how often they were retried and invoked so far. */
    private record Unit(List<FetchedRecord> records, int retries, int invocations, String functionError) {
    }

    /**
     * @param pause waits the retry delay (on the runtime's timer)
     * @param running {@code false} once the reader is asked to stop
     */
    BatchInvoker(WatchedTable table, RequestHandler<DynamodbEvent, StreamsEventResponse> handler,
                 MappingSettings settings, Checkpoints checkpoints, DeadLetters deadLetters,
                 StreamPollerMetrics metrics, Clock clock, String region, Consumer<Duration> pause,
                 BooleanSupplier running) {
        this.table = table;
        this.handler = handler;
        this.settings = settings;
        this.checkpoints = checkpoints;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.clock = clock;
        this.region = region;
        this.pause = pause;
        this.running = running;
    }

    /** Invokes the function until every record of the batch is processed; {@code false} if stopped first. */
    boolean process(ShardCursor shard, List<FetchedRecord> batch) {
        Deque<Unit> work = new ArrayDeque<>();
        work.push(new Unit(batch, 0, 0, null));
        while (!work.isEmpty()) {
            if (!running.getAsBoolean()) {
                return false;
            }
            Unit unit = work.pop();
            List<FetchedRecord> records = dropExpired(shard, unit);
            if (records.isEmpty()) {
                continue;
            }
            Invocation.Outcome outcome = Invocation.invoke(handler, FetchedRecord.lambdaRecords(records),
                    table.tableName(), region, clock);
            metrics.invoked(records.size());
            int invocations = unit.invocations() + 1;
            if (outcome instanceof Invocation.Succeeded) {
                metrics.handled(records.size());
                checkpoints.save(table.streamArn(), shard.shardId, FetchedRecord.last(records).sequenceNumber());
            } else if (outcome instanceof Invocation.FailedFrom partial) {
                metrics.handled(partial.index());
                metrics.invocationFailed();
                List<FetchedRecord> rest = records.subList(partial.index(), records.size());
                if (partial.index() > 0) {
                    checkpoints.save(table.streamArn(), shard.shardId, records.get(partial.index() - 1).sequenceNumber());
                    // The checkpoint moved: the rest is a new batch read from it, with retries and invocations of
                    // its own. AWS recorded this (test_dynamodb_report_batch_item_failures, MaximumRetryAttempts 3):
                    // the failed record was delivered 5 times, once with the records before it and 4 times alone,
                    // and its on-failure message says "approximateInvokeCount": 4.
                    work.push(new Unit(rest, 0, 0, null));
                } else {
                    retryOrGiveUp(shard, work, new Unit(rest, unit.retries(), invocations, null));
                }
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

    private void retryOrGiveUp(ShardCursor shard, Deque<Unit> work, Unit failed) {
        int maximum = settings.maximumRetryAttempts();
        if (maximum != -1 && failed.retries() >= maximum) {
            deadLetter(shard, failed.records(), DeadLetter.RETRY_ATTEMPTS_EXHAUSTED, failed.invocations(),
                    failed.functionError());
            return;
        }
        pause.accept(settings.retryDelay());
        work.push(new Unit(failed.records(), failed.retries() + 1, failed.invocations(), failed.functionError()));
    }

    private List<FetchedRecord> dropExpired(ShardCursor shard, Unit unit) {
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

    private void deadLetter(ShardCursor shard, List<FetchedRecord> records, String condition, int invocations,
                            String functionError) {
        DeadLetter letter = deadLetters.add(table, shard.shardId, condition, invocations, functionError,
                FetchedRecord.lambdaRecords(records));
        metrics.deadLettered(records.size());
        checkpoints.save(table.streamArn(), shard.shardId, FetchedRecord.last(records).sequenceNumber());
        LOG.log(System.Logger.Level.WARNING, "gave up on {0} records of table {1} ({2}); dead letter {3}",
                records.size(), table.tableName(), condition, letter.id());
    }
}
