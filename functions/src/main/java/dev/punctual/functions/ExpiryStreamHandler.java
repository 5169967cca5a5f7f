package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.events.EventBridgeBus;
import dev.punctual.events.EventBus;
import dev.punctual.events.EventPublisher;
import dev.punctual.expiry.BatchProcessor;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryMetrics;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ExpiryScheduler;
import dev.punctual.expiry.ListenerChain;
import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.Sleeper;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.windowed.BucketScheduler;
import dev.punctual.windowed.WindowedProcessor;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The Lambda function on a table's DynamoDB stream. In per-item mode it starts one
 * {@code expire-item} execution per item and TTL, named deterministically, and stops executions a
 * TTL change or an early delete made stale. In windowed mode it indexes each item under its TTL
 * second and starts the bucket executions that will delete it ({@link WindowedProcessor}). Either
 * way it returns the records to retry as a partial batch response ({@code ReportBatchItemFailures}).
 *
 * <p>Throttled Step Functions calls are retried with backoff and full jitter while the invocation has
 * time ({@link Context#getRemainingTimeInMillis()} less {@link #SAFETY_MARGIN}); only records still
 * throttled then are reported, so the event source mapping retries them. The event source mapping
 * counts each such invocation toward {@code MaximumRetryAttempts}, so spending the invocation's own
 * time on backoff is what keeps a burst of throttling out of the dead-letter queue.
 *
 * <p>Configured by the environment variables of {@link dev.punctual.statemachine.StreamWiring}.
 * The local runtime passes its own {@link Collaborators}: executions over its in-process transport,
 * its DynamoDB client and its metric recorder.
 */
public final class ExpiryStreamHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse>, AutoCloseable {

    /** log4j2.xml reads it as {@code ${sys:punctual.version}}: set before any logger is configured. */
    static final String VERSION_PROPERTY = "punctual.version";

    static {
        System.setProperty(VERSION_PROPERTY, PunctualVersion.current());
    }

    /**
     * Invocation time left unspent on backoff: a Step Functions call begun just before the deadline may
     * take {@link AwsClients#API_CALL_TIMEOUT} with the SDK's own retries, and the response must
     * still be returned before Lambda's timeout.
     */
    static final Duration SAFETY_MARGIN = AwsClients.API_CALL_TIMEOUT.plusSeconds(5);

    /** Set by Lambda in every function's environment: only there do metrics go out as EMF log lines. */
    private static final String LAMBDA_FUNCTION_NAME = "AWS_LAMBDA_FUNCTION_NAME";

    private final ExpirySettings settings;
    private final ThrottleBackoff backoff;
    private final BatchProcessor processor;
    private final DecisionLog log;
    private final MetricSink metrics;
    private final Clock clock;
    private final ItemExpiredEvents expiryEvents;
    private final Collaborators collaborators;

    /** The Lambda runtime's constructor: configuration and clients from {@code System.getenv()}. */
    public ExpiryStreamHandler() {
        this(Collaborators.builder(System.getenv()).build());
    }

    /**
     * A handler working with {@code collaborators}: the local runtime's in-process routes, or a test's
     * fakes. Closing the handler closes what {@link Collaborators.Builder#build()} built for it.
     */
    public ExpiryStreamHandler(Collaborators collaborators) {
        this.collaborators = collaborators;
        this.settings = collaborators.settings();
        this.metrics = collaborators.metrics();
        this.backoff = collaborators.backoff();
        this.log = new DecisionLog();
        this.clock = collaborators.clock();
        EventBus eventBus = collaborators.eventBus();
        this.expiryEvents = eventBus == null ? ItemExpiredEvents.OFF
                : new ItemExpiredEvents(new ExpiryRules(settings.ttlAttribute(), false),
                        new EventPublisher(eventBus, collaborators.eventBackoff(), ThreadLocalRandom.current()::nextDouble),
                        settings.includeOldImage());
        ChangeProcessor.Listener listener = new ListenerChain(log, new ExpiryMetrics(clock, metrics));
        this.processor = processorFor(settings, settings.ttlAttribute(), collaborators.executions(),
                collaborators.dynamoDb(), clock, listener);
    }

    /**
     * The processor that carries out changes the way {@code settings}' mode does: per item,
     * {@link ChangeProcessor} starting and stopping {@code expire-item} executions; windowed, a
     * {@link WindowedProcessor} indexing items into buckets. The backfill function hands its pages to
     * the same processor, so an existing item is scheduled exactly as a new one is.
     */
    static BatchProcessor processorFor(ExpirySettings settings, String ttlAttribute, Executions executions,
            DynamoDbClient dynamoDb, Clock clock, ChangeProcessor.Listener listener) {
        return settings.mode() == ExpiryMode.WINDOWED
                ? windowed(settings, ttlAttribute, executions, dynamoDb, clock, listener)
                : new ChangeProcessor(new ExpiryRules(ttlAttribute, settings.cancelStale()),
                        new ExpiryScheduler(executions), clock, listener, settings.maxConcurrency());
    }

    /**
     * What the handler works with, as Powertools' handlers take theirs: its settings, the Step Functions
     * executions it starts and stops, the DynamoDB client for windowed mode's index, its clock, its
     * backoff on throttling, where its metrics go, and the bus its expiry events go to with the sleeper
     * their retries back off on. A builder rather than a record, so that a new
     * collaborator comes with a default built from the environment and no caller has to change.
     */
    public static final class Collaborators {

        private final ExpirySettings settings;
        private final Executions executions;
        private final DynamoDbClient dynamoDb;
        private final Clock clock;
        private final ThrottleBackoff backoff;
        private final MetricSink metrics;
        private final EventBus eventBus;
        private final Sleeper eventBackoff;
        private final OwnedClients owned;

        private Collaborators(ExpirySettings settings, Executions executions, DynamoDbClient dynamoDb, Clock clock,
                ThrottleBackoff backoff, MetricSink metrics, EventBus eventBus, Sleeper eventBackoff, OwnedClients owned) {
            this.settings = settings;
            this.executions = executions;
            this.dynamoDb = dynamoDb;
            this.clock = clock;
            this.backoff = backoff;
            this.metrics = metrics;
            this.eventBus = eventBus;
            this.eventBackoff = eventBackoff;
            this.owned = owned;
        }

        /**
         * Collaborators configured from {@code environment} (the variables of {@link StreamWiring});
         * every part not set on the builder is built from it as in Lambda.
         *
         * @throws IllegalArgumentException naming the variable that is missing or malformed
         */
        public static Builder builder(Map<String, String> environment) {
            return new Builder(environment);
        }

        public ExpirySettings settings() {
            return settings;
        }

        public Executions executions() {
            return executions;
        }

        /** The client for windowed mode's schedule index and deletes; {@code null} in per-item mode. */
        public DynamoDbClient dynamoDb() {
            return dynamoDb;
        }

        public Clock clock() {
            return clock;
        }

        public ThrottleBackoff backoff() {
            return backoff;
        }

        public MetricSink metrics() {
            return metrics;
        }

        /** Where expiry events go; {@code null} when they are off. */
        public EventBus eventBus() {
            return eventBus;
        }

        /** What retries of a refused expiry event back off on. */
        public Sleeper eventBackoff() {
            return eventBackoff;
        }

        /** Closes what the builder built; what a caller passed in stays the caller's. */
        void close() throws Exception {
            owned.close();
        }

        /** Builds the parts a caller did not set, from the environment. */
        public static final class Builder extends CollaboratorsBuilder<Builder> {

            private ThrottleBackoff backoff;
            private MetricSink metrics;
            private EventBus eventBus;
            private Sleeper eventBackoff = Sleeper.SYSTEM;

            private Builder(Map<String, String> environment) {
                super(environment, ExpirySettings::fromEnvironment);
            }

            @Override
            Builder self() {
                return this;
            }

            /** Default: backoff on the system clock with real pauses. */
            public Builder backoff(ThrottleBackoff value) {
                this.backoff = value;
                return this;
            }

            /** Default: embedded metric format inside Lambda, nowhere outside it. */
            public Builder metrics(MetricSink value) {
                this.metrics = value;
                return this;
            }

            /** Default when the environment names a bus: an {@link EventBridgeBus} with its own client; none otherwise. */
            public Builder eventBus(EventBus value) {
                this.eventBus = value;
                return this;
            }

            /** Default: {@link Sleeper#SYSTEM}. */
            public Builder eventBackoff(Sleeper value) {
                this.eventBackoff = value;
                return this;
            }

            /** The collaborators; each call builds its own clients for the parts not set. */
            public Collaborators build() {
                OwnedClients owned = ownedClients();
                MetricSink sink = metrics != null ? metrics
                        : environment.containsKey(LAMBDA_FUNCTION_NAME) ? new PowertoolsMetricSink() : MetricSink.DISCARD;
                return new Collaborators(settings, owned.executions(executions),
                        settings.mode() == ExpiryMode.WINDOWED ? owned.dynamoDb(dynamoDb) : dynamoDb,
                        clock, backoff != null ? backoff : realBackoff(), sink,
                        owned.eventBus(eventBus), eventBackoff, owned);
            }
        }
    }

    /**
     * Windowed mode's processor. Its rules never stop executions: there are no per-item executions
     * to stop, and a stale index entry is harmless because its delete is conditional.
     */
    private static BatchProcessor windowed(ExpirySettings settings, String ttlAttribute, Executions buckets,
            DynamoDbClient dynamoDb, Clock clock, ChangeProcessor.Listener log) {
        ExecutorService pool = Executors.newFixedThreadPool(settings.maxConcurrency(), daemonThreads("punctual-windowed"));
        BucketScheduler scheduler = new BucketScheduler(new DynamoDbScheduleIndex(dynamoDb, settings.scheduleTable()),
                new DynamoDbItemDeleter(dynamoDb), buckets, clock, Sleeper.SYSTEM, pool);
        return new WindowedProcessor(new ExpiryRules(ttlAttribute, false), scheduler, clock, log, pool::shutdown);
    }

    /** Backoff on the real clock, with real pauses: what the function uses outside tests. */
    static ThrottleBackoff realBackoff() {
        return new ThrottleBackoff(Clock.systemUTC(), Sleeper.SYSTEM, ThreadLocalRandom.current());
    }

    static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        Duration backoffBudget = Duration.ofMillis(context.getRemainingTimeInMillis()).minus(SAFETY_MARGIN);
        return PowertoolsLogging.withLogging(context, () -> handle(event, backoffBudget));
    }

    private StreamsEventResponse handle(DynamodbEvent event, Duration backoffBudget) {
        List<DynamodbEvent.DynamodbStreamRecord> records = event == null || event.getRecords() == null
                ? List.of() : event.getRecords();
        List<StreamChange> changes = new ArrayList<>(records.size());
        List<ItemExpiredEvents.Read> read = new ArrayList<>(records.size());
        Set<String> failed = new HashSet<>();
        for (DynamodbEvent.DynamodbStreamRecord record : records) {
            try {
                StreamChange change = StreamRecords.toChange(record, settings.ttlAttribute());
                changes.add(change);
                read.add(new ItemExpiredEvents.Read(record, change));
            } catch (IllegalArgumentException e) {
                log.unreadable(sequenceNumber(record), e);
                failed.add(sequenceNumber(record));
            }
        }
        ThrottleBackoff.Batch retries = backoff.within(backoffBudget);
        failed.addAll(processor.process(changes, retries));
        failed.addAll(expiryEvents.publish(read, failed, clock.instant()));
        metrics.flush();
        if (retries.throttledCalls() > 0) {
            log.throttled(records.size(), retries);
        }
        Set<String> reported = new LinkedHashSet<>();
        for (DynamodbEvent.DynamodbStreamRecord record : records) {
            if (failed.contains(sequenceNumber(record))) {
                reported.add(sequenceNumber(record));
            }
        }
        List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>(reported.size());
        reported.forEach(sequenceNumber -> failures.add(new StreamsEventResponse.BatchItemFailure(sequenceNumber)));
        return new StreamsEventResponse(failures);
    }

    /**
     * The identifier a record is reported by. A record without one is reported as the empty
     * string, which makes Lambda retry the whole batch: the only safe answer for a record that
     * cannot say where it stands.
     */
    private static String sequenceNumber(DynamodbEvent.DynamodbStreamRecord record) {
        return record.getDynamodb() == null || record.getDynamodb().getSequenceNumber() == null
                ? "" : record.getDynamodb().getSequenceNumber();
    }

    /** Releases the worker threads and the clients the handler built (the local runtime's shutdown). */
    @Override
    public void close() throws Exception {
        processor.close();
        collaborators.close();
    }
}
