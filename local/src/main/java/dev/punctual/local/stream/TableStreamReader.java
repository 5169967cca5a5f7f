package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.local.time.Timer;
import dev.punctual.local.time.TimerSleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Reads one table's stream the way the Lambda event source mapping does, on one thread: shards read
 * in order ({@link StreamShards}); records batched by size and window, handed to the function with the
 * mapping's error handling ({@link BatchInvoker}); checkpoints advanced as records are processed. It
 * paces itself and waits on the runtime's {@link Timer}, so a test on a manual timer moves time for it
 * instead of waiting.
 */
final class TableStreamReader implements Runnable {

    private static final System.Logger LOG = System.getLogger(TableStreamReader.class.getName());
    private static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);

    private final WatchedTable table;
    private final MappingSettings settings;
    private final Checkpoints checkpoints;
    private final StreamPollerMetrics metrics;
    private final Clock clock;
    private final TimerSleeper pauses;
    private final StreamShards shards;
    private final BatchInvoker invoker;
    private final BooleanSupplier enabled;
    private volatile boolean running = true;
    /** Looks asked for by {@link #lookNow}, numbered; a pass serves the latest one asked for before it began. */
    private final AtomicLong looksAsked = new AtomicLong();
    private long looksServed;
    /** The latest look whose pass found nothing to read or hand over. */
    private volatile long quietLook;

    TableStreamReader(WatchedTable table, DynamoDbStreamsClient streams,
                      RequestHandler<DynamodbEvent, StreamsEventResponse> handler, FilterCriteria filter,
                      MappingSettings settings, Checkpoints checkpoints, DeadLetters deadLetters,
                      StreamPollerMetrics metrics, Timer timer, String region, BooleanSupplier enabled,
                      boolean stampWithRuntimeClock) {
        this.enabled = enabled;
        this.table = table;
        this.settings = settings;
        this.checkpoints = checkpoints;
        this.metrics = metrics;
        this.clock = timer.clock();
        this.pauses = new TimerSleeper(timer);
        this.shards = new StreamShards(table, streams, filter, settings.pollInterval(), checkpoints, metrics, clock,
                region, stampWithRuntimeClock);
        this.invoker = new BatchInvoker(table, handler, settings, checkpoints, deadLetters, metrics, clock, region,
                this::pause, () -> running);
    }

    WatchedTable table() {
        return table;
    }

    /**
     * Asks for a pass over every shard now, without waiting for the poll interval to pass on the
     * timer: for a test that holds time still and wants the stream read up to what was just written.
     * Returns the look's number, for {@link #quietSince}.
     */
    long lookNow() {
        long look = looksAsked.incrementAndGet();
        pauses.wake();
        return look;
    }

    /** Whether a pass begun after look {@code look} was asked for found nothing to read or hand over. */
    boolean quietSince(long look) {
        return quietLook >= look;
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
                long look = looksAsked.get();
                if (!enabled.getAsBoolean()) {
                    // A disabled mapping reads nothing, so a look asked of it is answered at once as quiet, and
                    // its pause only paces polling: a manual timer owes it nothing.
                    quietLook = look;
                    idlePause(look);
                    continue;
                }
                if (look != looksServed) {
                    shards.lookNow();
                    looksServed = look;
                }
                boolean busy = false;
                for (ShardCursor shard : shards.ready()) {
                    busy |= step(shard);
                    if (!running) {
                        return;
                    }
                }
                if (!busy) {
                    quietLook = look;
                    idlePause(look);
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
                shards.reset();
                pause(ERROR_BACKOFF);
            }
        }
    }

    private boolean step(ShardCursor shard) {
        boolean progressed = false;
        if (!shard.exhausted && shard.matching() < settings.batchSize() && due(shard.nextFetch)) {
            progressed = shards.fetch(shard);
        }
        return flush(shard) || progressed;
    }

    /** Hands the shard's next batch to the function once it is due; {@code true} if anything moved. */
    private boolean flush(ShardCursor shard) {
        if (shard.buffer.isEmpty()) {
            if (shard.exhausted) {
                shards.finish(shard);
                return true;
            }
            return false;
        }
        int matching = shard.matching();
        if (matching == 0) {
            metrics.filtered(shard.buffer.size());
            checkpoints.save(table.streamArn(), shard.shardId, shard.buffer.peekLast().sequenceNumber());
            shard.buffer.clear();
            return true;
        }
        if (!batchDue(shard, matching)) {
            return false;
        }
        List<FetchedRecord> batch = new ArrayList<>();
        String lastTaken = null;
        int filteredOut = 0;
        while (batch.size() < settings.batchSize() && !shard.buffer.isEmpty()) {
            FetchedRecord next = shard.buffer.pollFirst();
            lastTaken = next.sequenceNumber();
            if (next.matches()) {
                batch.add(next);
            } else {
                filteredOut++;
            }
        }
        metrics.filtered(filteredOut);
        if (invoker.process(shard, batch)) {
            checkpoints.save(table.streamArn(), shard.shardId, lastTaken);
        }
        return true;
    }

    private boolean batchDue(ShardCursor shard, int matching) {
        if (matching >= settings.batchSize() || shard.exhausted || settings.maximumBatchingWindowInSeconds() == 0) {
            return true;
        }
        Instant firstFetched = shard.buffer.stream().filter(FetchedRecord::matches).findFirst().orElseThrow()
                .fetchedAt();
        return !clock.instant().isBefore(firstFetched.plusSeconds(settings.maximumBatchingWindowInSeconds()));
    }

    /** Whether the timer's clock has reached {@code instant}. */
    private boolean due(Instant instant) {
        return !clock.instant().isBefore(instant);
    }

    /** The pause between passes that found nothing: a poll, which {@link #lookNow} cuts short. */
    private void idlePause(long look) {
        try {
            pauses.pollPause(settings.pollInterval(), () -> looksAsked.get() != look);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private void pause(Duration duration) {
        try {
            pauses.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
