package dev.punctual.local.runtime;

import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.quotas.Quota;
import dev.punctual.local.stepfunctions.quotas.QuotaSettings;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Punctual on one machine: DynamoDB Local on loopback, the Step Functions API backed by our ASL
 * engine running {@code expire-item.asl.json}, and a stream poller that invokes the real
 * {@link ExpiryStreamHandler} the way the Lambda event source mapping would, configured through the
 * same environment variables as in Lambda.
 *
 * <p>With a data directory, tables, stream checkpoints, dead letters and executions all live under
 * it and survive a restart (or a crash): {@code dynamodb/}, {@code stream/}, {@code stepfunctions/}.
 *
 * <p>Start one with {@link #start(Options)}; closing it stops the poller first (no new work), then the
 * functions, the endpoints and the engine, and DynamoDB Local last.
 *
 * <p>As Temporal's test environment hands out a client, workers, time and close, this hands out what a
 * test or an application runs against (endpoints, clients, the stream mapping, the mode, time, close)
 * and keeps the rest behind two views: {@link #observations()}, what it saw of Punctual's work, and
 * {@link #faults()}, what it injects. What only one mode has is reached through {@link #mode()}.
 */
public interface LocalRuntime extends AutoCloseable {

    /** Starts everything; returns once every endpoint accepts requests and the poller runs. */
    static LocalRuntime start(Options options) {
        if (options.attached()) {
            throw new IllegalArgumentException("These options attach to DynamoDB at " + options.external().dynamoDb()
                    + " and Step Functions at " + options.external().stepFunctions()
                    + ": start them with AttachedRuntime.start, which starts neither DynamoDB Local nor the engine");
        }
        return new WiredRuntime(options);
    }

    /** The options this runtime runs with. */
    Options options();

    /** The timer everything here runs on; its clock is the runtime's clock. */
    Timer timer();

    /**
     * On a {@link dev.punctual.local.time.ManualTimer}: returns once the runtime has done everything it
     * will do at the timer's instant now, without moving time: every wake-up due run, no work left on
     * its threads, every watched table's stream read and handled to its end (so the deletes due now are
     * made and their expiry events published). {@link SkippedTime} moves time with it.
     *
     * @throws IllegalStateException when the timer is not a manual one, or when the runtime is still
     *     busy after {@code timeout} of wall time (a call retried on the timer waits for time to move)
     */
    void awaitSettled(Duration timeout);

    /** Where DynamoDB Local, the Step Functions API and the EventBridge endpoint listen, for clients of one's own. */
    Endpoints endpoints();

    /** A DynamoDB client for the runtime's tables, owned by the runtime. */
    DynamoDbClient dynamoDb();

    /**
     * The engine behind the Step Functions API, to start, list and describe executions without HTTP;
     * {@link StepFunctionsEngine#recovery()} says what a start on a data directory recovered. The
     * expire-item machine, deployed in every mode, is at {@link LocalDefaults#stateMachineArn()}.
     */
    StepFunctionsEngine stepFunctionsEngine();

    /**
     * The event source mapping: the tables it watches ({@code discoverTables} after creating one), whether
     * it is enabled, what it has handled per table, and its dead letters (the batches it gave up on, as
     * its on-failure destination holds them in AWS).
     */
    StreamPoller streamPoller();

    /**
     * The mode every watched table runs in, as wired here: the state machine the stream handler starts,
     * the handler's environment, and what differs between modes; {@link RuntimeMode#windowed()} reaches
     * what only windowed mode has.
     */
    RuntimeMode mode();

    /**
     * What the runtime saw of Punctual's work, for a trial, the console or a test: the deletion ledger,
     * published metrics, costs, throttles, handler calls, the events published and the event rules'
     * deliveries.
     */
    Observations observations();

    /** The faults the runtime injects into Punctual's DynamoDB calls, Lambda invocations and {@code PutEvents}, and what it injected. */
    FaultInjection faults();

    /** Stops the poller first (no new work), then the functions, the endpoints, the engine and DynamoDB Local. */
    @Override
    void close();

    /**
     * Where the runtime's services listen on loopback.
     *
     * @param dynamoDb DynamoDB Local's endpoint
     * @param stepFunctions the Step Functions API's endpoint
     * @param events the EventBridge endpoint: {@code PutEvents}, and the stored events for {@code punctual events}
     */
    record Endpoints(URI dynamoDb, URI stepFunctions, URI events) {

        public Endpoints {
            Objects.requireNonNull(dynamoDb, "dynamoDb");
            Objects.requireNonNull(stepFunctions, "stepFunctions");
            Objects.requireNonNull(events, "events");
        }
    }

    /**
     * How to run. Build with {@link #builder()} (or from {@link #defaults()} / {@link #onFreePorts()}),
     * change with {@link #toBuilder()} or the {@code with...} shorthands.
     *
     * @param dynamoDbPort DynamoDB Local's port on 127.0.0.1, 0 for a free one
     * @param stepFunctionsPort the Step Functions API's port on 127.0.0.1, 0 for a free one
     * @param dataDirectory where state survives restarts; {@code null} keeps everything in memory
     * @param tables tables to watch; empty watches every table with a stream and TTL enabled
     * @param cancelStale whether the handler stops executions made stale by TTL changes and deletes
     * @param mapping event source mapping settings (the table allow-list is taken from {@code tables})
     * @param quotas the Step Functions quotas the API and engine enforce: the open-execution limit always
     *     (AWS: 1,000,000; a small one makes StartExecution fail with {@code ExecutionLimitExceeded}, as it
     *     would at the real quota), the StartExecution, StopExecution and state-transition token buckets
     *     only when {@link QuotaSettings#ratesEnforced()}
     * @param handlerOverHttp whether the stream handler calls the Step Functions API over HTTP, as the
     *     AWS CLI does, rather than through the in-process transport (the default, several times cheaper
     *     per StartExecution)
     * @param mode how every watched table's expirations are scheduled: per-item (the default) or windowed
     * @param bucketDeleteConcurrency windowed mode's bucket delete concurrency: DeleteItems the bucket
     *     function has in flight at once, 1 to {@link StreamWiring#MAX_MAX_CONCURRENCY}, default
     *     {@link StreamWiring#DEFAULT_BUCKET_CONCURRENCY} as the construct's {@code bucketDeleteConcurrency};
     *     per-item mode has no bucket function and ignores it
     * @param expiryEvents whether the handler publishes {@code ItemExpired} events to the runtime's
     *     EventBridge endpoint (the endpoint runs either way)
     * @param eventsPort the EventBridge endpoint's port on 127.0.0.1, 0 for a free one
     * @param timer the timer, and through it the clock, that everything runs on: the engine's Waits, the
     *     stream poller's pacing and retries, the functions' clocks and waits, the trial's polls;
     *     {@code null} for the runtime's own timer on the system clock. A test passes a
     *     {@link dev.punctual.local.time.ManualTimer} to move time instead of waiting for it.
     * @param external services to attach to instead of starting DynamoDB Local and the engine
     *     ({@link AttachedRuntime}); {@code null} to start our own. The ports, quotas and expiry events
     *     above then configure nothing.
     * @param retention how much of the past the runtime keeps: closed executions, events, the console's
     *     expiries, dead letters, published metrics, each by count and by age ({@code --retain})
     */
    record Options(int dynamoDbPort, int stepFunctionsPort, Path dataDirectory, Set<String> tables,
                   boolean cancelStale, MappingSettings mapping, QuotaSettings quotas,
                   boolean handlerOverHttp, ExpiryMode mode, int bucketDeleteConcurrency, boolean expiryEvents,
                   int eventsPort, Timer timer, ExternalServices external, RetentionSettings retention) {

        public Options {
            Objects.requireNonNull(retention, "retention");
            tables = Set.copyOf(tables);
            Objects.requireNonNull(mapping, "mapping");
            Objects.requireNonNull(quotas, "quotas");
            Objects.requireNonNull(mode, "mode");
            if (bucketDeleteConcurrency < 1 || bucketDeleteConcurrency > StreamWiring.MAX_MAX_CONCURRENCY) {
                throw new IllegalArgumentException("bucketDeleteConcurrency must be between 1 and "
                        + StreamWiring.MAX_MAX_CONCURRENCY + ", got " + bucketDeleteConcurrency);
            }
        }

        /**
         * In memory on free ports, every eligible table, cancellation on, AWS's quotas without their rates,
         * in-process, per-item, expiry events on; no timer (the runtime's own).
         */
        public static Builder builder() {
            return new Builder();
        }

        /** The defaults: well-known ports, in memory, every eligible table, cancellation on, expiry events on. */
        public static Options defaults() {
            return builder().ports(LocalDefaults.DYNAMODB_PORT, LocalDefaults.STEP_FUNCTIONS_PORT)
                    .events(true, LocalDefaults.EVENTS_PORT).build();
        }

        /** In memory on free ports: for tests. */
        public static Options onFreePorts() {
            return builder().build();
        }

        /** A builder holding these options, to change some of them. */
        public Builder toBuilder() {
            return new Builder(this);
        }

        public Options withDataDirectory(Path directory) {
            return toBuilder().dataDirectory(directory).build();
        }

        public Options withPorts(int dynamoDb, int stepFunctionsApi) {
            return toBuilder().ports(dynamoDb, stepFunctionsApi).build();
        }

        public Options withTables(Set<String> names) {
            return toBuilder().tables(names).build();
        }

        public Options withCancelStale(boolean cancel) {
            return toBuilder().cancelStale(cancel).build();
        }

        public Options withMapping(MappingSettings settings) {
            return toBuilder().mapping(settings).build();
        }

        public Options withMaxOpenExecutions(int max) {
            return toBuilder().maxOpenExecutions(max).build();
        }

        public Options withQuotas(QuotaSettings stepFunctionsQuotas) {
            return toBuilder().quotas(stepFunctionsQuotas).build();
        }

        public Options withHandlerOverHttp(boolean overHttp) {
            return toBuilder().handlerOverHttp(overHttp).build();
        }

        public Options withTimer(Timer runtimeTimer) {
            return toBuilder().timer(runtimeTimer).build();
        }

        public Options withMode(ExpiryMode expiryMode) {
            return toBuilder().mode(expiryMode).build();
        }

        public Options withBucketDeleteConcurrency(int concurrency) {
            return toBuilder().bucketDeleteConcurrency(concurrency).build();
        }

        public Options withEvents(boolean publish, int port) {
            return toBuilder().events(publish, port).build();
        }

        /** These options attached to {@code services} rather than starting DynamoDB Local and the engine. */
        public Options attachedTo(ExternalServices services) {
            return toBuilder().attachTo(services).build();
        }

        /** Whether these options attach to external services ({@link AttachedRuntime}) rather than start our own. */
        public boolean attached() {
            return external != null;
        }

        public Options withRetention(RetentionSettings settings) {
            return toBuilder().retention(settings).build();
        }

        /** Open executions beyond which StartExecution fails with {@code ExecutionLimitExceeded}. */
        public int maxOpenExecutions() {
            return quotas.openExecutions();
        }

        /** Where the part named {@code child} keeps its state, or {@code null} in memory. */
        Path under(String child) {
            return dataDirectory == null ? null : dataDirectory.resolve(child);
        }

        /** Builds {@link Options}; each setter's meaning is the record component's of the same name. */
        public static final class Builder {
            private int dynamoDbPort;
            private int stepFunctionsPort;
            private Path dataDirectory;
            private Set<String> tables = Set.of();
            private boolean cancelStale = true;
            private MappingSettings mapping = MappingSettings.builder().build();
            private QuotaSettings quotas = QuotaSettings.ratesUnlimited();
            private boolean handlerOverHttp;
            private ExpiryMode mode = ExpiryMode.PER_ITEM;
            private int bucketDeleteConcurrency = StreamWiring.DEFAULT_BUCKET_CONCURRENCY;
            private boolean expiryEvents = true;
            private int eventsPort;
            private Timer timer;
            private ExternalServices external;
            private RetentionSettings retention = RetentionSettings.defaults();

            private Builder() {
            }

            private Builder(Options options) {
                dynamoDbPort = options.dynamoDbPort;
                stepFunctionsPort = options.stepFunctionsPort;
                dataDirectory = options.dataDirectory;
                tables = options.tables;
                cancelStale = options.cancelStale;
                mapping = options.mapping;
                quotas = options.quotas;
                handlerOverHttp = options.handlerOverHttp;
                mode = options.mode;
                bucketDeleteConcurrency = options.bucketDeleteConcurrency;
                expiryEvents = options.expiryEvents;
                eventsPort = options.eventsPort;
                timer = options.timer;
                external = options.external;
                retention = options.retention;
            }

            /** DynamoDB Local's and the Step Functions API's ports (0: a free one). */
            public Builder ports(int dynamoDb, int stepFunctionsApi) {
                dynamoDbPort = dynamoDb;
                stepFunctionsPort = stepFunctionsApi;
                return this;
            }

            public Builder dataDirectory(Path directory) {
                dataDirectory = directory;
                return this;
            }

            public Builder tables(Set<String> names) {
                tables = names;
                return this;
            }

            public Builder cancelStale(boolean cancel) {
                cancelStale = cancel;
                return this;
            }

            public Builder mapping(MappingSettings settings) {
                mapping = settings;
                return this;
            }

            public Builder quotas(QuotaSettings stepFunctionsQuotas) {
                quotas = stepFunctionsQuotas;
                return this;
            }

            /** The open-execution limit at {@code max}; the token buckets stay as they are. */
            public Builder maxOpenExecutions(int max) {
                quotas = quotas.with(Quota.OPEN_EXECUTIONS, max);
                return this;
            }

            public Builder handlerOverHttp(boolean overHttp) {
                handlerOverHttp = overHttp;
                return this;
            }

            public Builder mode(ExpiryMode expiryMode) {
                mode = expiryMode;
                return this;
            }

            public Builder bucketDeleteConcurrency(int concurrency) {
                bucketDeleteConcurrency = concurrency;
                return this;
            }

            /** Whether the handler publishes expiry events, and the EventBridge endpoint's port (0: a free one). */
            public Builder events(boolean publish, int port) {
                expiryEvents = publish;
                eventsPort = port;
                return this;
            }

            public Builder timer(Timer runtimeTimer) {
                timer = runtimeTimer;
                return this;
            }

            /** External services to attach to ({@link AttachedRuntime}); {@code null} to start our own. */
            public Builder attachTo(ExternalServices services) {
                external = services;
                return this;
            }

            public Builder retention(RetentionSettings settings) {
                retention = settings;
                return this;
            }

            public Options build() {
                return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping, quotas,
                        handlerOverHttp, mode, bucketDeleteConcurrency, expiryEvents, eventsPort, timer, external, retention);
            }
        }
    }
}
