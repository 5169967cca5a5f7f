package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ExpiryScheduler;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.StreamWiring;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The Lambda function on a table's DynamoDB stream: for every item with a TTL it starts one
 * {@code expire-item} execution, named deterministically, and stops executions a TTL change or an
 * early delete made stale. Returns the records to retry as a partial batch response
 * ({@code ReportBatchItemFailures}).
 *
 * <p>Throttled Step Functions calls are retried with backoff and full jitter while the invocation has
 * time ({@link Context#getRemainingTimeInMillis()} less {@link #SAFETY_MARGIN}); only records still
 * throttled then are reported, so the event source mapping retries them. The event source mapping
 * counts each such invocation toward {@code MaximumRetryAttempts}, so spending the invocation's own
 * time on backoff is what keeps a burst of throttling out of the dead-letter queue.
 *
 * <p>Configured by the environment variables of {@link dev.punctual.statemachine.StreamWiring}.
 * The local runtime builds it in-process with {@link #ExpiryStreamHandler(Map)}.
 */
public final class ExpiryStreamHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse>, AutoCloseable {

    /**
     * Invocation time left unspent on backoff: a Step Functions call begun just before the deadline may
     * take {@link SfnExecutions#API_CALL_TIMEOUT} with the SDK's own retries, and the response must
     * still be returned before Lambda's timeout.
     */
    static final Duration SAFETY_MARGIN = SfnExecutions.API_CALL_TIMEOUT.plusSeconds(5);

    private final ExpirySettings settings;
    private final ThrottleBackoff backoff;
    private final ChangeProcessor processor;
    private final DecisionLog log;
    private final Executions executions;

    /** The Lambda runtime's constructor: configuration from {@code System.getenv()}. */
    public ExpiryStreamHandler() {
        this(System.getenv());
    }

    /**
     * A handler configured from {@code environment}, with its own Step Functions client.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public ExpiryStreamHandler(Map<String, String> environment) {
        this(ExpirySettings.fromEnvironment(environment), environment);
    }

    /**
     * A handler configured from {@code environment} whose Step Functions client sends its requests
     * through {@code stepFunctionsTransport} (owned by the caller) instead of HTTP: the local
     * runtime's in-process route to its engine. Everything else is as in Lambda.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public ExpiryStreamHandler(Map<String, String> environment, SdkHttpClient stepFunctionsTransport) {
        this(ExpirySettings.fromEnvironment(environment), environment, stepFunctionsTransport);
    }

    private ExpiryStreamHandler(ExpirySettings settings, Map<String, String> environment) {
        this(settings, SfnExecutions.create(settings, environment), Clock.systemUTC());
    }

    private ExpiryStreamHandler(ExpirySettings settings, Map<String, String> environment, SdkHttpClient transport) {
        this(settings, SfnExecutions.create(settings, environment, transport), Clock.systemUTC());
    }

    /** Tests' constructor: fake executions and a fixed clock. */
    ExpiryStreamHandler(ExpirySettings settings, Executions executions, Clock clock) {
        this(settings, executions, clock, new ThrottleBackoff(Clock.systemUTC(), ThrottleBackoff.Pause.THREAD_SLEEP,
                ThreadLocalRandom.current()));
    }

    /** Tests' constructor for throttling: the backoff's clock and pauses are the test's. */
    ExpiryStreamHandler(ExpirySettings settings, Executions executions, Clock clock, ThrottleBackoff backoff) {
        this.settings = settings;
        this.backoff = backoff;
        this.executions = executions;
        this.log = new DecisionLog();
        this.processor = new ChangeProcessor(new ExpiryRules(settings.ttlAttribute(), settings.cancelStale()),
                new ExpiryScheduler(executions), clock, log, settings.maxConcurrency());
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
        Set<String> failed = new HashSet<>();
        for (DynamodbEvent.DynamodbStreamRecord record : records) {
            try {
                changes.add(StreamRecords.toChange(record, settings.ttlAttribute()));
            } catch (IllegalArgumentException e) {
                log.unreadable(sequenceNumber(record), e);
                failed.add(sequenceNumber(record));
            }
        }
        ThrottleBackoff.Batch retries = backoff.within(backoffBudget);
        failed.addAll(processor.process(changes, retries));
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
    }
}
