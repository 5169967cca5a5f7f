package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.functions.DaemonThreads;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.ClockTimer;
import dev.punctual.local.time.Timer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.ListTablesResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The local stand-in for the Lambda event source mappings of every table that has a stream and TTL:
 * it finds such tables when it starts and as they are created or changed (ListTables every
 * {@link MappingSettings#discoveryInterval()}), gives each its own function instance and filter
 * criteria, and reads its stream on a thread of its own ({@link TableStreamReader}).
 *
 * <pre>{@code
 * StreamPoller poller = StreamPoller.builder()
 *         .dynamoDb(dynamoDb).streams(streams)
 *         .handlerFactory(table -> handlerFor(table.ttlAttribute()))
 *         .filterPatterns(table -> StreamWiring.filterPatterns(table.ttlAttribute(), true))
 *         .settings(MappingSettings.builder().build())
 *         .dataDirectory(dataDirOrNull)
 *         .start();
 * }</pre>
 */
public final class StreamPoller implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(StreamPoller.class.getName());
    private static final long STOP_GRACE_MILLIS = 5_000;

    private final DynamoDbClient dynamoDb;
    private final DynamoDbStreamsClient streams;
    private final HandlerRegistry handlers;
    private final Function<WatchedTable, List<String>> filterPatterns;
    private final MappingSettings settings;
    private final Checkpoints checkpoints;
    private final DeadLetters deadLetters;
    private final StreamPollerMetrics metrics = new StreamPollerMetrics();
    private final Timer timer;
    /** The timer this poller made for itself when given none; closed with it. */
    private final ClockTimer ownTimer;
    private final Clock clock;
    private final String region;
    private final Map<String, Running> readers = new ConcurrentHashMap<>();
    private final ExecutorService discovery;
    private volatile Timer.Cancellable nextDiscovery;
    private volatile boolean closed;
    private volatile boolean enabled = true;
    private final boolean stampWithRuntimeClock;

    private record Running(TableStreamReader reader, Thread thread, StreamPollerMetrics metrics) {
    }

    private StreamPoller(Builder builder) {
        this.dynamoDb = Objects.requireNonNull(builder.dynamoDb, "dynamoDb");
        this.streams = Objects.requireNonNull(builder.streams, "streams");
        this.handlers = new HandlerRegistry(Objects.requireNonNull(builder.handlerFactory, "handlerFactory"));
        this.filterPatterns = builder.filterPatterns;
        this.settings = builder.settings;
        this.ownTimer = builder.timer == null ? new ClockTimer(Clock.systemUTC(), Runnable::run, "stream-timer") : null;
        this.timer = builder.timer == null ? ownTimer : builder.timer;
        this.clock = timer.clock();
        this.region = builder.region;
        this.stampWithRuntimeClock = builder.stampWithRuntimeClock;
        this.checkpoints = builder.dataDirectory == null ? Checkpoints.inMemory() : Checkpoints.inDirectory(builder.dataDirectory);
        // The runtime redrives its own dead letters through the function it runs now, for their table.
        this.deadLetters = new DeadLetters(builder.dataDirectory, letter -> handlers.handlerFor(letter.table()), builder.mode,
                clock, region, builder.deadLetterRetention);
        this.discovery = Executors.newSingleThreadExecutor(DaemonThreads.named("stream-discovery"));
    }

    /** A builder; dynamoDb, streams and handlerFactory are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The dead-letter store: list and redrive records the poller gave up on. */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /**
     * Turns polling off and on, as the mapping's {@code Enabled} setting does: while disabled no
     * stream is read and records wait in the stream; enabled again, every reader resumes from where
     * it stood. Tables are still discovered meanwhile.
     */
    public void setEnabled(boolean value) {
        enabled = value;
    }

    /** Whether the poller reads streams now. */
    public boolean isEnabled() {
        return enabled;
    }

    /** Counters for the benchmark and status output. */
    public StreamPollerMetrics metrics() {
        return metrics;
    }

    /** The counters of each table whose stream is being read now, by table name. */
    public Map<String, StreamPollerMetrics.Snapshot> tableMetrics() {
        Map<String, StreamPollerMetrics.Snapshot> result = new java.util.TreeMap<>();
        readers.forEach((name, running) -> result.put(name, running.metrics().snapshot()));
        return result;
    }

    /** The tables whose streams are being read now. */
    public List<WatchedTable> watchedTables() {
        List<WatchedTable> tables = new ArrayList<>();
        readers.values().forEach(running -> tables.add(running.reader().table()));
        return List.copyOf(tables);
    }

    /**
     * The first sequence number of a shard this poller still needs, for {@code StreamRecordTrim}: of a
     * watched table's current stream, the last record processed (a reader resumes after it) or, if none
     * was, the whole shard; nothing of a shard read to its end, nor of a stream no table here is read
     * from. A checkpoint only moves forward, so an answer that is out of date keeps more, never less.
     */
    public long keepFrom(String streamArn, String shardId) {
        boolean watched = readers.values().stream().anyMatch(r -> r.reader().table().streamArn().equals(streamArn));
        if (!watched || checkpoints.isFinished(streamArn, shardId)) {
            return Long.MAX_VALUE;
        }
        return checkpoints.lastProcessed(streamArn, shardId).map(StreamPoller::sequence).orElse(Long.MIN_VALUE);
    }

    private static long sequence(String sequenceNumber) {
        try {
            return Long.parseLong(sequenceNumber);
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE;
        }
    }

    /** Looks for tables to watch once, now; the poller also does this periodically by itself. */
    public synchronized void discoverTables() {
        if (closed) {
            return;
        }
        Set<String> names = listTables();
        for (String name : names) {
            if (!settings.allows(name)) {
                continue;
            }
            Optional<WatchedTable> qualified = qualify(name);
            Running current = readers.get(name);
            if (current != null && qualified.filter(current.reader().table()::equals).isPresent()) {
                continue;
            }
            if (current != null) {
                LOG.log(System.Logger.Level.INFO, "table {0} changed its stream or TTL; re-reading it", name);
                stop(readers.remove(name));
            }
            qualified.ifPresent(this::watch);
        }
        for (String name : new HashSet<>(readers.keySet())) {
            if (!names.contains(name)) {
                stop(readers.remove(name));
            }
        }
    }

    private void watch(WatchedTable table) {
        List<String> patterns = filterPatterns.apply(table);
        StreamPollerMetrics tableMetrics = new StreamPollerMetrics(metrics);
        TableStreamReader reader = new TableStreamReader(table, streams, handlers.handlerFor(table),
                FilterCriteria.of(patterns), settings, checkpoints, deadLetters, tableMetrics, timer, region,
                this::isEnabled, stampWithRuntimeClock);
        Thread thread = new Thread(reader, "stream-" + table.tableName());
        thread.setDaemon(true);
        readers.put(table.tableName(), new Running(reader, thread, tableMetrics));
        thread.start();
        LOG.log(System.Logger.Level.INFO, "reading the stream of table {0} (TTL attribute {1})", table.tableName(),
                table.ttlAttribute());
    }

    /**
     * Asks every reader for a pass over its shards now ({@link #quietSince}), without waiting for the
     * poll interval to pass on the timer. Returns each watched table's look number.
     */
    public Map<String, Long> lookNow() {
        Map<String, Long> looks = new HashMap<>();
        readers.forEach((name, running) -> looks.put(name, running.reader().lookNow()));
        return looks;
    }

    /**
     * Whether every table watched now was watched at {@code looks} and has since made a pass that found
     * nothing to read or hand to the function: its stream is handled up to what was in it then.
     */
    public boolean quietSince(Map<String, Long> looks) {
        for (Map.Entry<String, Running> running : readers.entrySet()) {
            Long look = looks.get(running.getKey());
            if (look == null || !running.getValue().reader().quietSince(look)) {
                return false;
            }
        }
        return true;
    }

    /** Stream records read so far from every table: unchanged across a span means nothing arrived in it. */
    public long recordsRead() {
        return metrics.snapshot().recordsRead();
    }

    private Set<String> listTables() {
        Set<String> names = new HashSet<>();
        String startAfter = null;
        do {
            String exclusiveStart = startAfter;
            ListTablesResponse page = dynamoDb.listTables(b -> b.exclusiveStartTableName(exclusiveStart));
            names.addAll(page.tableNames());
            startAfter = page.lastEvaluatedTableName();
        } while (startAfter != null);
        return names;
    }

    private Optional<WatchedTable> qualify(String name) {
        try {
            DescribeTableResponse table = dynamoDb.describeTable(b -> b.tableName(name));
            var stream = table.table().streamSpecification();
            String streamArn = table.table().latestStreamArn();
            if (stream == null || !Boolean.TRUE.equals(stream.streamEnabled()) || streamArn == null) {
                return Optional.empty();
            }
            TimeToLiveDescription ttl = dynamoDb.describeTimeToLive(b -> b.tableName(name)).timeToLiveDescription();
            if (ttl == null || ttl.attributeName() == null
                    || ttl.timeToLiveStatus() != TimeToLiveStatus.ENABLED && ttl.timeToLiveStatus() != TimeToLiveStatus.ENABLING) {
                return Optional.empty();
            }
            return Optional.of(new WatchedTable(name, streamArn, ttl.attributeName()));
        } catch (ResourceNotFoundException e) {
            return Optional.empty();
        }
    }

    private void start() {
        discoverTables();
        scheduleDiscovery();
    }

    /**
     * Looks for tables again one discovery interval from now on the timer; the timer only hands the
     * look-up to the discovery thread, since its own actions must stay short.
     */
    private void scheduleDiscovery() {
        if (closed) {
            return;
        }
        try {
            nextDiscovery = timer.schedulePoll(clock.instant().plus(settings.discoveryInterval()), this::handOverDiscovery);
        } catch (IllegalStateException timerClosed) {
            // The runtime is shutting down around this poller: no more look-ups.
        }
    }

    private void handOverDiscovery() {
        try {
            discovery.execute(() -> {
                try {
                    discoverTables();
                } catch (RuntimeException e) {
                    if (!closed) {
                        LOG.log(System.Logger.Level.WARNING, "looking for tables with a stream and TTL failed; trying again", e);
                    }
                }
                scheduleDiscovery();
            });
        } catch (RejectedExecutionException closing) {
            // The poller closed meanwhile: no more look-ups.
        }
    }

    private static void stop(Running running) {
        if (running == null) {
            return;
        }
        running.reader().stop();
        try {
            running.thread().join(STOP_GRACE_MILLIS);
            if (running.thread().isAlive()) {
                running.thread().interrupt();
                running.thread().join(STOP_GRACE_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops discovery and every reader after the step it is in. Checkpoints are already on disk (they
     * are written as records are processed); records handed to the function but not yet checkpointed
     * are delivered again on the next start, which the function tolerates (at-least-once).
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        Timer.Cancellable pending = nextDiscovery;
        if (pending != null) {
            pending.cancel();
        }
        discovery.shutdownNow();
        readers.values().forEach(running -> running.reader().stop());
        for (String name : new HashSet<>(readers.keySet())) {
            stop(readers.remove(name));
        }
        if (ownTimer != null) {
            ownTimer.close();
        }
    }

    /** Builds and starts a {@link StreamPoller}. */
    public static final class Builder {
        private DynamoDbClient dynamoDb;
        private DynamoDbStreamsClient streams;
        private Function<WatchedTable, RequestHandler<DynamodbEvent, StreamsEventResponse>> handlerFactory;
        private Function<WatchedTable, List<String>> filterPatterns = table -> List.of();
        private MappingSettings settings = MappingSettings.builder().build();
        private Path dataDirectory;
        private Retention deadLetterRetention = Retained.DEAD_LETTERS.defaults();
        private Timer timer;
        private String region = LocalAccount.REGION;
        private boolean stampWithRuntimeClock;
        private String mode;

        private Builder() {
        }

        /** Client for ListTables, DescribeTable and DescribeTimeToLive. */
        public Builder dynamoDb(DynamoDbClient value) {
            dynamoDb = value;
            return this;
        }

        /** Client for DescribeStream, GetShardIterator and GetRecords. */
        public Builder streams(DynamoDbStreamsClient value) {
            streams = value;
            return this;
        }

        /** Builds the function for a table (called once per table and stream). */
        /**
         * The label of the expiry mode the handlers run in ({@code ExpiryMode.label()}), filed with each dead
         * letter so that {@code punctual dlq redrive} hands its records to a function of the same mode.
         */
        public Builder mode(String label) {
            this.mode = label;
            return this;
        }

        public Builder handlerFactory(Function<WatchedTable, RequestHandler<DynamodbEvent, StreamsEventResponse>> value) {
            handlerFactory = value;
            return this;
        }

        /** The filter patterns of a table's mapping; none by default (every record delivered). */
        public Builder filterPatterns(Function<WatchedTable, List<String>> value) {
            filterPatterns = value;
            return this;
        }

        /** The mapping's settings. */
        public Builder settings(MappingSettings value) {
            settings = value;
            return this;
        }

        /** Where checkpoints and dead letters are kept; {@code null} keeps them in memory. */
        public Builder dataDirectory(Path value) {
            dataDirectory = value;
            return this;
        }

        /** How many dead letters to keep, and for how long (default: {@code --retain dead-letters}'s). */
        public Builder deadLetterRetention(Retention value) {
            deadLetterRetention = value;
            return this;
        }

        /**
         * The timer the readers pace, retry and look for tables on, and whose clock times the batching
         * window, record ages and dead letters: the runtime's engine timer, or a test's manual one. By
         * default a timer of the poller's own on the system clock.
         */
        public Builder timer(Timer value) {
            timer = value;
            return this;
        }

        /** Region in records and ARNs. */
        public Builder region(String value) {
            region = value;
            return this;
        }

        /**
         * Whether to stamp each record's {@code ApproximateCreationDateTime} with the timer's instant when
         * it is read, instead of the one DynamoDB Local wrote (its wall clock): for a timer a test moves,
         * whose time the wall clock does not follow. Off by default, as in AWS.
         */
        public Builder stampWithRuntimeClock(boolean value) {
            stampWithRuntimeClock = value;
            return this;
        }

        /**
         * Creates the poller, watches the tables that qualify now, and keeps looking for more. A mapping it
         * cannot start with (say, a filter pattern that is not valid) is refused with the reason, and nothing
         * of the poller is left running.
         */
        public StreamPoller start() {
            StreamPoller poller = new StreamPoller(this);
            try {
                poller.start();
            } catch (RuntimeException | Error e) {
                poller.close();
                throw e;
            }
            return poller;
        }
    }
}
