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
 * The local runtime builds it with its in-process {@link Routes}.
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
    private final Executions executions;
    private final DynamoDbClient ownedDynamoDb;
    private final Clock clock;
    private final ItemExpiredEvents expiryEvents;
    private final EventBridgeBus ownedEventBus;

    /** The Lambda runtime's constructor: configuration from {@code System.getenv()}. */
    public ExpiryStreamHandler() {
        this(System.getenv(), Routes.FROM_ENVIRONMENT);
    }

    /**
     * A handler configured from {@code environment} (the variables of {@link StreamWiring}) whose calls
     * take {@code routes}: {@link Routes#FROM_ENVIRONMENT} builds every client as in Lambda; the local
     * runtime passes its in-process routes.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public ExpiryStreamHandler(Map<String, String> environment, Routes routes) {
        this(ExpirySettings.fromEnvironment(environment), environment, routes);
    }

    private ExpiryStreamHandler(ExpirySettings settings, Map<String, String> environment, Routes routes) {
        this(settings, routes.stepFunctionsTransport() == null ? SfnExecutions.create(settings, environment)
                        : SfnExecutions.create(settings, environment, routes.stepFunctionsTransport()),
                settings.mode() == ExpiryMode.WINDOWED && routes.dynamoDb() == null ? AwsClients.dynamoDb(settings, environment) : null,
                routes.dynamoDb(), Clock.systemUTC(), realBackoff(), routes.metrics() != null ? routes.metrics()
                        : environment.containsKey(LAMBDA_FUNCTION_NAME) ? new PowertoolsMetricSink() : MetricSink.DISCARD,
                settings.eventBus().map(bus -> new EventBridgeBus(AwsClients.eventBridge(settings, environment), bus, true))
                        .orElse(null), Sleeper.SYSTEM);
    }

    /** Tests' constructor: the test's executions, clock, backoff and metric sink. */
    ExpiryStreamHandler(ExpirySettings settings, Executions executions, Clock clock, ThrottleBackoff backoff, MetricSink metrics) {
        this(settings, executions, null, null, clock, backoff, metrics, null, Sleeper.SYSTEM);
    }

    /** Tests' constructor with expiry events: the test's bus, and the sleeper its retries back off on. */
    ExpiryStreamHandler(ExpirySettings settings, Executions executions, Clock clock, ThrottleBackoff backoff, MetricSink metrics,
            EventBus eventBus, Sleeper eventBackoff) {
        this(settings, executions, null, null, clock, backoff, metrics, eventBus, eventBackoff);
    }

    private ExpiryStreamHandler(ExpirySettings settings, Executions executions, DynamoDbClient ownedDynamoDb,
            DynamoDbClient sharedDynamoDb, Clock clock, ThrottleBackoff backoff, MetricSink metrics, EventBus eventBus,
            Sleeper eventBackoff) {
        this.settings = settings;
        this.clock = clock;
        this.ownedEventBus = eventBus instanceof EventBridgeBus owned ? owned : null;
        this.expiryEvents = eventBus == null ? ItemExpiredEvents.OFF
                : new ItemExpiredEvents(new ExpiryRules(settings.ttlAttribute(), false),
                        new EventPublisher(eventBus, eventBackoff, ThreadLocalRandom.current()::nextDouble), settings.includeOldImage());
        this.metrics = metrics;
        this.backoff = backoff;
        this.executions = executions;
        this.ownedDynamoDb = ownedDynamoDb;
        this.log = new DecisionLog();
        ChangeProcessor.Listener listener = new ListenerChain(log, new ExpiryMetrics(clock, metrics));
        this.processor = settings.mode() == ExpiryMode.WINDOWED
                ? windowed(settings, executions, ownedDynamoDb != null ? ownedDynamoDb : sharedDynamoDb, clock, listener)
                : new ChangeProcessor(new ExpiryRules(settings.ttlAttribute(), settings.cancelStale()),
                        new ExpiryScheduler(executions), clock, listener, settings.maxConcurrency());
    }

    /**
     * Windowed mode's processor. Its rules never stop executions: there are no per-item executions
     * to stop, and a stale index entry is harmless because its delete is conditional.
     */
    private static BatchProcessor windowed(ExpirySettings settings, Executions buckets, DynamoDbClient dynamoDb, Clock clock,
            ChangeProcessor.Listener log) {
        ExecutorService pool = Executors.newFixedThreadPool(settings.maxConcurrency(), daemonThreads("punctual-windowed"));
        BucketScheduler scheduler = new BucketScheduler(new DynamoDbScheduleIndex(dynamoDb, settings.scheduleTable()),
                new DynamoDbItemDeleter(dynamoDb), buckets, clock, Sleeper.SYSTEM, pool);
        return new WindowedProcessor(new ExpiryRules(settings.ttlAttribute(), false), scheduler, clock, log, pool::shutdown);
    }

    /** Backoff on the real clock, with real pauses: what the function uses outside tests. */
    static ThrottleBackoff realBackoff() {
        return new ThrottleBackoff(Clock.systemUTC(), ThrottleBackoff.Pause.THREAD_SLEEP, ThreadLocalRandom.current());
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
        Duration remaining = context == null ? StreamWiring.FUNCTION_TIMEOUT
                : Duration.ofMillis(context.getRemainingTimeInMillis());
        Duration backoffBudget = remaining.minus(SAFETY_MARGIN);
        if (context == null) {
            return handle(event, backoffBudget);
        }
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

    /** Releases the worker threads and the Step Functions client (the local runtime's shutdown). */
    @Override
    public void close() throws Exception {
        processor.close();
        if (executions instanceof AutoCloseable closeable) {
            closeable.close();
        }
        if (ownedDynamoDb != null) {
            ownedDynamoDb.close();
        }
        if (ownedEventBus != null) {
            ownedEventBus.close();
        }
    }
}
