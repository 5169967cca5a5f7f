package dev.punctual.local.runtime;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.RecordedMetrics;
import dev.punctual.functions.BucketFunction;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.SfnExecutions;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.billing.CostMeter;
import dev.punctual.local.billing.DeletionLedger;
import dev.punctual.local.billing.MeteredDynamoDb;
import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import dev.punctual.local.dynamodb.InProcessDynamoDb;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.events.EventBridgeServer;
import dev.punctual.local.events.EventStore;
import dev.punctual.local.events.PutEventsApi;
import dev.punctual.local.events.PutEventsFaults;
import dev.punctual.local.stepfunctions.api.InProcessTransport;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.Recovery;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stepfunctions.quotas.Quota;
import dev.punctual.local.stepfunctions.quotas.QuotaSettings;
import dev.punctual.local.stepfunctions.quotas.Throttles;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import dev.punctual.local.stepfunctions.tasks.DynamoDbFaults;
import dev.punctual.local.stepfunctions.tasks.DynamoDbTaskResource;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stepfunctions.tasks.LambdaTaskResource;
import dev.punctual.local.stream.DeadLetters;
import dev.punctual.local.stream.LocalLambdaContext;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.local.time.ClockTimer;
import dev.punctual.local.time.Timer;
import dev.punctual.local.time.TimerSleeper;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Punctual on one machine: DynamoDB Local on loopback, the Step Functions API backed by our ASL
 * engine running {@code expire-item.asl.json}, and a stream poller that invokes the real
 * {@link ExpiryStreamHandler} the way the Lambda event source mapping would, configured through the
 * same environment variables as in Lambda.
 *
 * <p>With a data directory, tables, stream checkpoints, dead letters and executions all live under
 * it and survive a restart (or a crash): {@code dynamodb/}, {@code stream/}, {@code stepfunctions/}.
 */
public final class LocalRuntime implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LocalRuntime.class.getName());

    /** Threads that call DynamoDB for Task states: deletes are short blocking calls into DynamoDB Local. */
    private static final int TASK_THREADS = 16;
    /** Converts payloads between the engine's JSON and the bucket function's Map, as Lambda's runtime does. */
    private static final ObjectMapper PAYLOADS = new ObjectMapper();

    private final Options options;
    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
    private final Map<WatchedTable, ExpiryStreamHandler> handlers = new ConcurrentHashMap<>();
    /** The handlers' Step Functions adapters over the in-process transport: the runtime's, closed after the handlers. */
    private final Queue<SfnExecutions> handlerExecutions = new ConcurrentLinkedQueue<>();
    private final DynamoDbLocalServer dynamoDbServer;
    private final StepFunctionsEngine stepFunctions;
    private final StepFunctionsServer stepFunctionsServer;
    private final DynamoDbFaults faults;
    private final DynamoDbClient dynamoDb;
    private final StreamPoller poller;
    private final String stateMachineArn;
    private final String bucketStateMachineArn;
    private final InProcessTransport stepFunctionsTransport;
    private final CostMeter costMeter = new CostMeter();
    private final DeletionLedger deletions = new DeletionLedger();
    private final RecordedMetrics metrics = new RecordedMetrics();
    private final MeteredDynamoDb punctualDynamoDb;
    private final Throttles throttles;
    private final Timer timer;
    private final Clock clock;
    private final TimerSleeper sleeper;
    private final EventStore events;
    private final PutEventsFaults eventFaults = new PutEventsFaults();
    private final EventBridgeServer eventsServer;

    /**
     * How to run.
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
     * @param handlerOverHttp whether the stream handler calls the Step Functions API over HTTP rather
     *     than through the in-process transport
     * @param mode how every watched table's expirations are scheduled
     * @param expiryEvents whether the handler publishes {@code ItemExpired} events to the runtime's
     *     EventBridge endpoint (the endpoint runs either way)
     * @param eventsPort the EventBridge endpoint's port on 127.0.0.1, 0 for a free one
     * @param timer the timer, and through it the clock, that everything runs on: the engine's Waits, the
     *     stream poller's pacing and retries, the functions' clocks and waits, the trial's polls;
     *     {@code null} for the runtime's own timer on the system clock. A test passes a
     *     {@link dev.punctual.local.time.ManualTimer} to move time instead of waiting for it.
     */
    public record Options(int dynamoDbPort, int stepFunctionsPort, Path dataDirectory, Set<String> tables,
                          boolean cancelStale, MappingSettings mapping, QuotaSettings quotas,
                          boolean handlerOverHttp, ExpiryMode mode, boolean expiryEvents, int eventsPort,
                          Timer timer) {

        public Options {
            tables = Set.copyOf(tables);
            Objects.requireNonNull(mapping, "mapping");
            Objects.requireNonNull(quotas, "quotas");
            Objects.requireNonNull(mode, "mode");
        }

        /** Options with AWS's open-execution quota. */
        public Options(int dynamoDbPort, int stepFunctionsPort, Path dataDirectory, Set<String> tables,
                       boolean cancelStale, MappingSettings mapping) {
            this(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    QuotaSettings.ratesUnlimited(), false, ExpiryMode.PER_ITEM, true, 0, null);
        }

        /** The defaults: well-known ports, in memory, every eligible table, cancellation on, expiry events on. */
        public static Options defaults() {
            return new Options(LocalDefaults.DYNAMODB_PORT, LocalDefaults.STEP_FUNCTIONS_PORT, null, Set.of(), true,
                    MappingSettings.builder().build()).withEvents(true, LocalDefaults.EVENTS_PORT);
        }

        /** In memory on free ports: for tests. */
        public static Options onFreePorts() {
            return new Options(0, 0, null, Set.of(), true, MappingSettings.builder().build());
        }

        public Options withDataDirectory(Path directory) {
            return new Options(dynamoDbPort, stepFunctionsPort, directory, tables, cancelStale, mapping, quotas,
                    handlerOverHttp, mode, expiryEvents, eventsPort, timer);
        }

        public Options withPorts(int dynamoDb, int stepFunctionsApi) {
            return new Options(dynamoDb, stepFunctionsApi, dataDirectory, tables, cancelStale, mapping, quotas,
                    handlerOverHttp, mode, expiryEvents, eventsPort, timer);
        }

        public Options withTables(Set<String> names) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, names, cancelStale, mapping, quotas,
                    handlerOverHttp, mode, expiryEvents, eventsPort, timer);
        }

        public Options withCancelStale(boolean cancel) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancel, mapping, quotas,
                    handlerOverHttp, mode, expiryEvents, eventsPort, timer);
        }

        public Options withMapping(MappingSettings settings) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, settings, quotas,
                    handlerOverHttp, mode, expiryEvents, eventsPort, timer);
        }

        /** These options with the open-execution limit at {@code max}; the token buckets stay as they are. */
        public Options withMaxOpenExecutions(int max) {
            return withQuotas(quotas.with(Quota.OPEN_EXECUTIONS, max));
        }

        /** These options with {@code stepFunctionsQuotas} enforced by the API and the engine. */
        public Options withQuotas(QuotaSettings stepFunctionsQuotas) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    stepFunctionsQuotas, handlerOverHttp, mode, expiryEvents, eventsPort, timer);
        }

        /** Open executions beyond which StartExecution fails with {@code ExecutionLimitExceeded}. */
        public int maxOpenExecutions() {
            return quotas.openExecutions();
        }

        /**
         * Whether the handler's {@code SfnClient} reaches the engine over HTTP, as the AWS CLI does,
         * instead of in-process (the default, several times cheaper per StartExecution).
         */
        public Options withHandlerOverHttp(boolean overHttp) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    quotas, overHttp, mode, expiryEvents, eventsPort, timer);
        }

        /** These options with everything running on {@code runtimeTimer} (see {@link #timer()}). */
        public Options withTimer(Timer runtimeTimer) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    quotas, handlerOverHttp, mode, expiryEvents, eventsPort, runtimeTimer);
        }

        /** Per-item (the default) or windowed, for every watched table. */
        public Options withMode(ExpiryMode expiryMode) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    quotas, handlerOverHttp, expiryMode, expiryEvents, eventsPort, timer);
        }

        /** Whether the handler publishes expiry events, and the EventBridge endpoint's port (0: a free one). */
        public Options withEvents(boolean publish, int port) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    quotas, handlerOverHttp, mode, publish, port, timer);
        }

        private Path under(String child) {
            return dataDirectory == null ? null : dataDirectory.resolve(child);
        }
    }

    private LocalRuntime(Options options) {
        this.options = options;
        try {
            dynamoDbServer = register(DynamoDbLocalServer.start(
                    new DynamoDbLocalServer.Options(options.dynamoDbPort(), options.under("dynamodb"))));
            dynamoDb = register(LocalDynamoDbClients.dynamoDb(dynamoDbServer.endpoint()));
            // Punctual is the TTL here; DynamoDB Local's own TTL job would only compete for the database.
            dynamoDbServer.stopNativeTtl();
            // The runtime's own traffic (deletes, stream reads) skips HTTP; these belong to the server.
            InProcessDynamoDb inProcess = dynamoDbServer.inProcess();

            ExecutorService tasks = register(Executors.newFixedThreadPool(TASK_THREADS, named("punctual-task")));
            timer = options.timer() != null ? options.timer() : ownTimer();
            clock = timer.clock();
            sleeper = new TimerSleeper(timer);
            faults = DynamoDbFaults.none();
            throttles = Throttles.of(options.quotas(), timer.clock());
            // Punctual's own DynamoDB calls (the state machine's deletes, the functions' index calls)
            // are metered for the cost report; the index is Punctual's, every other table a user's.
            punctualDynamoDb = new MeteredDynamoDb(inProcess.dynamoDb(), costMeter, deletions,
                    table -> !ScheduleIndexTable.LOCAL_TABLE_NAME.equals(table), clock);
            LambdaFunctions functions = new LambdaFunctions();
            stepFunctions = register(StepFunctionsEngine.builder()
                    .interpreter(resources -> new Interpreter(timer, resources, tasks, throttles.transitions()))
                    .taskResources(List.of(new DynamoDbTaskResource(punctualDynamoDb, faults), new LambdaTaskResource(functions)))
                    .timer(timer)
                    .dataDirectory(options.under("stepfunctions"))
                    .region(LocalAccount.REGION)
                    .accountId(LocalAccount.ACCOUNT_ID)
                    .maxOpenExecutions(options.maxOpenExecutions())
                    .build());
            stepFunctionsServer = register(StepFunctionsServer.start(stepFunctions, throttles,
                    new InetSocketAddress(LocalDefaults.LOOPBACK, options.stepFunctionsPort())));
            stateMachineArn = deploy(stepFunctions, LocalDefaults.STATE_MACHINE_NAME, StateMachineDefinitions.expireItem("aws"));
            stepFunctionsTransport = options.handlerOverHttp() ? null : new InProcessTransport(stepFunctions,
                    throttles);
            if (options.mode() == ExpiryMode.WINDOWED) {
                createScheduleIndex(dynamoDb);
                bucketStateMachineArn = deploy(stepFunctions, LocalDefaults.BUCKET_STATE_MACHINE_NAME,
                        StateMachineDefinitions.expireBucket("aws", LocalDefaults.bucketFunctionArn()));
                BucketFunction.Collaborators.Builder bucketParts = BucketFunction.Collaborators.builder(bucketFunctionEnvironment())
                        .dynamoDb(punctualDynamoDb)
                        .clock(clock)
                        .sleeper(sleeper);
                if (stepFunctionsTransport != null) {
                    bucketParts.executions(register(SfnExecutions.create(bucketParts.settings(), bucketFunctionEnvironment(),
                            stepFunctionsTransport)));
                }
                BucketFunction bucketFunction = register(new BucketFunction(bucketParts.build()));
                functions.register(LocalDefaults.BUCKET_FUNCTION_NAME, payload -> invokeMetered(bucketFunction, payload));
            } else {
                bucketStateMachineArn = null;
            }
            register(LocalBackfill.deploy(this, (name, definition) -> deploy(stepFunctions, name, definition),
                    functions, punctualDynamoDb, stepFunctionsTransport, costMeter::invocation));

            events = register(EventStore.in(options.under("events")));
            eventsServer = register(EventBridgeServer.start(new PutEventsApi(events, eventFaults, clock,
                            LocalAccount.REGION, LocalAccount.ACCOUNT_ID, costMeter::expiryEvent), events,
                    new InetSocketAddress(LocalDefaults.LOOPBACK, options.eventsPort())));

            MappingSettings mapping = options.mapping().toBuilder().tableAllowList(options.tables()).build();
            poller = register(StreamPoller.builder()
                    .dynamoDb(inProcess.dynamoDb())
                    .streams(inProcess.streams())
                    .handlerFactory(this::handlerFor)
                    .timer(timer)
                    .filterPatterns(table -> StreamWiring.filterPatterns(table.ttlAttribute(), true))
                    .settings(mapping)
                    .dataDirectory(options.under("stream"))
                    .region(LocalAccount.REGION)
                    .start());
        } catch (RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    /** Starts everything; returns once every endpoint accepts requests and the poller runs. */
    public static LocalRuntime start(Options options) {
        return new LocalRuntime(options);
    }

    /** The timer everything here runs on; its clock is the runtime's clock. */
    public Timer timer() {
        return timer;
    }

    /** The options this runtime runs with. */
    public Options options() {
        return options;
    }

    /** DynamoDB Local's endpoint. */
    public URI dynamoDbEndpoint() {
        return dynamoDbServer.endpoint();
    }

    /** The Step Functions API's endpoint. */
    public URI stepFunctionsEndpoint() {
        return LocalDefaults.endpoint(stepFunctionsServer.port());
    }

    /** ARN of the expire-item state machine. */
    public String stateMachineArn() {
        return stateMachineArn;
    }

    /** ARN of windowed mode's expire-bucket state machine; empty in per-item mode. */
    public Optional<String> bucketStateMachineArn() {
        return Optional.ofNullable(bucketStateMachineArn);
    }

    /** The state machine the stream handler starts executions of: expire-bucket when windowed, else expire-item. */
    public String scheduledStateMachineArn() {
        return bucketStateMachineArn != null ? bucketStateMachineArn : stateMachineArn;
    }

    /** The EventBridge endpoint: {@code PutEvents}, and the stored events for {@code punctual events}. */
    public URI eventsEndpoint() {
        return LocalDefaults.endpoint(eventsServer.port());
    }

    /** The events the EventBridge endpoint accepted. */
    public EventStore events() {
        return events;
    }

    /** Fault injection for {@code PutEvents}. */
    public PutEventsFaults eventFaults() {
        return eventFaults;
    }

    /** What Punctual's own work on this runtime would be billed, counted so far. */
    public CostMeter.Snapshot costs() {
        StepFunctionsEngine engine = stepFunctions;
        return costMeter.snapshot(engine.billedTransitions(), engine.startExecutionCalls(), engine.peakOpenExecutions());
    }

    /**
     * The metrics every stream handler of this runtime published ({@code ExpiryLag}, expiries by
     * Punctual and by native TTL, ...): what the function would publish to CloudWatch in AWS.
     */
    public RecordedMetrics metrics() {
        return metrics;
    }

    /** When Punctual deleted each item of the tables it is asked to track. */
    public DeletionLedger deletions() {
        return deletions;
    }

    /** A DynamoDB client for the runtime's tables, owned by the runtime. */
    public DynamoDbClient dynamoDb() {
        return dynamoDb;
    }

    /** Fault injection for the state machine's DynamoDB calls. */
    public DynamoDbFaults dynamoDbFaults() {
        return faults;
    }

    /** The stream poller (watched tables, dead letters, metrics). */
    public StreamPoller streamPoller() {
        return poller;
    }

    /** The dead-letter store of the stream poller. */
    public DeadLetters deadLetters() {
        return poller.deadLetters();
    }

    /** The engine behind the Step Functions API. */
    public StepFunctionsEngine stepFunctionsEngine() {
        return stepFunctions;
    }

    /** What the Step Functions quotas have throttled so far (all zero without {@code --aws-quotas}). */
    public ThrottleCounts throttled() {
        return throttles.counts();
    }

    /** What a start on an existing data directory recovered. */
    public Recovery recovery() {
        return stepFunctions.recovery();
    }

    /** How long DynamoDB Local took to start. */
    public Duration dynamoDbStartTime() {
        return dynamoDbServer.startTime();
    }

    /**
     * The environment the handler gets for one table: the same variables the CDK construct sets in
     * Lambda, with the Step Functions endpoint pointed at this runtime.
     */
    public Map<String, String> handlerEnvironment(WatchedTable table) {
        Map<String, String> environment = new HashMap<>(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, scheduledStateMachineArn(),
                StreamWiring.ENV_TTL_ATTRIBUTE, table.ttlAttribute(),
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, stepFunctionsEndpoint().toString(),
                StreamWiring.ENV_CANCEL_STALE, Boolean.toString(cancelStale()),
                StreamWiring.ENV_MODE, options.mode().label()));
        if (options.mode() == ExpiryMode.WINDOWED) {
            environment.put(StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME);
            environment.put(StreamWiring.ENV_DYNAMODB_ENDPOINT, dynamoDbEndpoint().toString());
        }
        if (options.expiryEvents()) {
            environment.put(ExpiryEvents.ENV_EVENT_BUS, LocalDefaults.EVENT_BUS);
            environment.put(ExpiryEvents.ENV_EVENTS_ENDPOINT, eventsEndpoint().toString());
        }
        return Map.copyOf(environment);
    }

    /**
     * The bucket function's environment, as the CDK construct sets it in Lambda, but with as many
     * deletes in flight as the state machine's task threads: DynamoDB Local runs a table's deletes one
     * at a time, so more threads only queue on its lock.
     */
    private Map<String, String> bucketFunctionEnvironment() {
        return Map.of(
                StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(TASK_THREADS),
                StreamWiring.ENV_STATE_MACHINE_ARN, bucketStateMachineArn,
                StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME,
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, stepFunctionsEndpoint().toString(),
                StreamWiring.ENV_DYNAMODB_ENDPOINT, dynamoDbEndpoint().toString());
    }

    /** Windowed mode stops no executions: a stale index entry is harmless, its delete being conditional. */
    private boolean cancelStale() {
        return options.cancelStale() && options.mode() == ExpiryMode.PER_ITEM;
    }

    private RequestHandler<DynamodbEvent, StreamsEventResponse> handlerFor(WatchedTable table) {
        ExpiryStreamHandler handler = handlers.computeIfAbsent(table, this::newHandler);
        return (event, context) -> {
            long started = System.nanoTime();
            try {
                return handler.handleRequest(event, context);
            } finally {
                costMeter.invocation(StreamWiring.STREAM_FUNCTION_MEMORY_MB, Duration.ofNanos(System.nanoTime() - started));
            }
        };
    }

    /**
     * A handler for one table, with the runtime's DynamoDB client and metric recorder and, unless the
     * handler goes over HTTP, Step Functions calls over the in-process transport.
     */
    private ExpiryStreamHandler newHandler(WatchedTable table) {
        Map<String, String> environment = handlerEnvironment(table);
        ExpiryStreamHandler.Collaborators.Builder parts = ExpiryStreamHandler.Collaborators.builder(environment)
                .dynamoDb(punctualDynamoDb)
                .clock(clock)
                .backoff(new ThrottleBackoff(clock, sleeper::sleep, ThreadLocalRandom.current()))
                .eventBackoff(sleeper)
                .metrics(metrics);
        if (stepFunctionsTransport != null) {
            SfnExecutions executions = SfnExecutions.create(parts.settings(), environment, stepFunctionsTransport);
            handlerExecutions.add(executions);
            parts.executions(executions);
        }
        return new ExpiryStreamHandler(parts.build());
    }

    private JsonNode invokeMetered(BucketFunction function, JsonNode payload) {
        long started = System.nanoTime();
        try {
            Map<String, Object> input = PAYLOADS.convertValue(payload, new TypeReference<Map<String, Object>>() { });
            return PAYLOADS.valueToTree(function.handleRequest(input,
                    new LocalLambdaContext(LocalDefaults.BUCKET_FUNCTION_NAME, LocalAccount.REGION, clock)));
        } finally {
            costMeter.invocation(StreamWiring.BUCKET_FUNCTION_MEMORY_MB, Duration.ofNanos(System.nanoTime() - started));
        }
    }

    /**
     * Creates the state machine, or updates it when a data directory from an earlier run holds it:
     * running executions keep the definition they started with, new ones get today's file.
     */
    private static String deploy(StepFunctionsEngine engine, String name, String definition) {
        String arn = engine.stateMachineArn(name);
        try {
            engine.describeStateMachine(arn);
            engine.updateStateMachine(arn, definition, LocalDefaults.ROLE_ARN);
        } catch (StepFunctionsException notThereYet) {
            engine.createStateMachine(name, definition, LocalDefaults.ROLE_ARN, "STANDARD");
        }
        return arn;
    }

    /** The schedule index as the construct creates it in AWS (on-demand, TTL on its expiresAt). */
    private static void createScheduleIndex(DynamoDbClient dynamoDb) {
        try {
            dynamoDb.createTable(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            AttributeDefinition.builder().attributeName(ScheduleIndexTable.PARTITION_KEY)
                                    .attributeType(ScalarAttributeType.S).build(),
                            AttributeDefinition.builder().attributeName(ScheduleIndexTable.SORT_KEY)
                                    .attributeType(ScalarAttributeType.S).build())
                    .keySchema(
                            KeySchemaElement.builder().attributeName(ScheduleIndexTable.PARTITION_KEY).keyType(KeyType.HASH).build(),
                            KeySchemaElement.builder().attributeName(ScheduleIndexTable.SORT_KEY).keyType(KeyType.RANGE).build()));
            dynamoDb.updateTimeToLive(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME)
                    .timeToLiveSpecification(t -> t.enabled(true).attributeName(ScheduleIndexTable.EXPIRES_AT)));
        } catch (ResourceInUseException exists) {
            // A data directory from an earlier run already holds the index.
        }
    }

    /** The runtime's own timer on the system clock, with two threads for its actions; closed with the runtime. */
    private ClockTimer ownTimer() {
        ExecutorService timerActions = register(Executors.newFixedThreadPool(2, named("punctual-timer-action")));
        return register(new ClockTimer(Clock.systemUTC(), timerActions, "punctual-timer"));
    }

    private <T extends AutoCloseable> T register(T closeable) {
        closeables.push(closeable);
        return closeable;
    }

    private ExecutorService register(ExecutorService executor) {
        closeables.push(executor::shutdownNow);
        return executor;
    }

    private static java.util.concurrent.ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Stops the poller first (no new work), then the engine, the API and DynamoDB Local. */
    @Override
    public void close() {
        closeQuietly(null);
    }

    private void closeQuietly(RuntimeException primary) {
        RuntimeException failure = primary;
        // The poller is registered last, so it closes first; handlers after it, before the engine.
        while (!closeables.isEmpty()) {
            AutoCloseable next = closeables.pop();
            try {
                next.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("Shutting down the local runtime failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
            if (next == poller) {
                closeHandlers(failure);
            }
        }
        if (failure != null && primary == null) {
            LOG.log(System.Logger.Level.WARNING, "Local runtime shut down with errors", failure);
        }
    }

    private void closeHandlers(RuntimeException failure) {
        for (ExpiryStreamHandler handler : handlers.values()) {
            try {
                handler.close();
            } catch (Exception e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else {
                    LOG.log(System.Logger.Level.WARNING, "Closing a stream handler failed", e);
                }
            }
        }
        handlers.clear();
        SfnExecutions executions;
        while ((executions = handlerExecutions.poll()) != null) {
            executions.close();
        }
    }
}
