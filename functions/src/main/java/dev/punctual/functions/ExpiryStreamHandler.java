package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.events.EventPublisher;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.ExpiryMetrics;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ListenerChain;
import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.PunctualVersion;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The Lambda function on a table's DynamoDB stream. It decides what each record calls for and has the
 * table's mode schedule it ({@link FunctionModes}): per item, one {@code expire-item} execution per
 * item and TTL, named deterministically, stopping executions a TTL change or an early delete made
 * stale; windowed, each item indexed under its TTL second and the bucket executions that will delete
 * it started. Either way it returns the records to retry as a partial batch response
 * ({@code ReportBatchItemFailures}).
 *
 * <p>Throttled Step Functions calls are retried with backoff and full jitter while the invocation has
 * time ({@link Context#getRemainingTimeInMillis()} less {@link #SAFETY_MARGIN}); only records still
 * throttled then are reported, so the event source mapping retries them. The event source mapping
 * counts each such invocation toward {@code MaximumRetryAttempts}, so spending the invocation's own
 * time on backoff is what keeps a burst of throttling out of the dead-letter queue.
 *
 * <p>Configured by the environment variables of {@link dev.punctual.statemachine.StreamWiring}.
 * The local runtime passes its own {@link FunctionParts}: executions over its in-process transport,
 * its DynamoDB client, its timer's clock and sleeper, and its metric recorder.
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

    private final ExpirySettings settings;
    private final ThrottleBackoff backoff;
    private final ExecutorService pool;
    private final ChangeProcessor processor;
    private final DecisionLog log;
    private final MetricSink metrics;
    private final Clock clock;
    private final ItemExpiredEvents expiryEvents;
    private final FunctionParts parts;

    /** The Lambda runtime's constructor: configuration and clients from {@code System.getenv()}. */
    public ExpiryStreamHandler() {
        this(FunctionParts.builder(System.getenv()).build());
    }

    /**
     * A handler working with {@code parts}: the local runtime's in-process routes, or a test's fakes.
     * Closing the handler closes the parts (what they built, not what was given to them).
     *
     * @throws IllegalArgumentException naming an environment variable the table's mode needs and is not set
     */
    public ExpiryStreamHandler(FunctionParts parts) {
        this.parts = parts;
        this.settings = parts.settings();
        this.metrics = parts.metrics();
        this.backoff = parts.backoff();
        this.log = new DecisionLog();
        this.clock = parts.clock();
        this.expiryEvents = parts.eventBus()
                .map(bus -> new ItemExpiredEvents(new ExpiryRules(settings.ttlAttribute()),
                        new EventPublisher(bus, parts.sleeper(), ThreadLocalRandom.current()::nextDouble),
                        settings.includeOldImage()))
                .orElse(ItemExpiredEvents.OFF);
        ChangeProcessor.Listener listener = new ListenerChain(log, new ExpiryMetrics(clock, metrics));
        this.pool = Executors.newFixedThreadPool(settings.maxConcurrency(), DaemonThreads.named("punctual-expiry"));
        this.processor = new ChangeProcessor(new ExpiryRules(settings.ttlAttribute()),
                FunctionModes.scheduler(settings.mode(), parts, pool), clock, listener, pool);
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

    /** Releases the worker threads and the clients the parts built (the local runtime's shutdown). */
    @Override
    public void close() throws Exception {
        pool.shutdown();
        parts.close();
    }
}
