package dev.punctual.local.runtime;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import dev.punctual.local.dynamodb.InProcessDynamoDb;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.stepfunctions.api.InProcessTransport;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stepfunctions.executions.StepFunctionsLocal;
import dev.punctual.local.stepfunctions.quotas.StepFunctionsQuota;
import dev.punctual.local.stepfunctions.quotas.StepFunctionsQuotas;
import dev.punctual.local.stepfunctions.quotas.StepFunctionsThrottles;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import dev.punctual.local.stepfunctions.tasks.DynamoDbFaults;
import dev.punctual.local.stepfunctions.tasks.DynamoDbTaskResource;
import dev.punctual.local.stream.DeadLetters;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.local.time.ClockTimer;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

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

    private final Options options;
    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
    private final Map<WatchedTable, ExpiryStreamHandler> handlers = new ConcurrentHashMap<>();
    private final DynamoDbLocalServer dynamoDbServer;
    private final StepFunctionsLocal stepFunctions;
    private final StepFunctionsServer stepFunctionsServer;
    private final DynamoDbFaults faults;
    private final DynamoDbClient dynamoDb;
    private final StreamPoller poller;
    private final String stateMachineArn;
    private final InProcessTransport stepFunctionsTransport;
    private final StepFunctionsThrottles throttles;

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
     *     only when {@link StepFunctionsQuotas#ratesEnforced()}
     * @param handlerOverHttp whether the stream handler calls the Step Functions API over HTTP rather
     *     than through the in-process transport
     */
    public record Options(int dynamoDbPort, int stepFunctionsPort, Path dataDirectory, Set<String> tables,
                          boolean cancelStale, MappingSettings mapping, StepFunctionsQuotas quotas,
                          boolean handlerOverHttp) {

        public Options {
            tables = Set.copyOf(tables);
            Objects.requireNonNull(mapping, "mapping");
            Objects.requireNonNull(quotas, "quotas");
        }

        /** Options with AWS's open-execution quota. */
        public Options(int dynamoDbPort, int stepFunctionsPort, Path dataDirectory, Set<String> tables,
                       boolean cancelStale, MappingSettings mapping) {
            this(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    StepFunctionsQuotas.ratesUnlimited(), false);
        }

        /** The defaults: well-known ports, in memory, every eligible table, cancellation on. */
        public static Options defaults() {
            return new Options(LocalDefaults.DYNAMODB_PORT, LocalDefaults.STEP_FUNCTIONS_PORT, null, Set.of(), true,
                    MappingSettings.builder().build());
        }

        /** In memory on free ports: for tests. */
        public static Options onFreePorts() {
            return new Options(0, 0, null, Set.of(), true, MappingSettings.builder().build());
        }

        public Options withDataDirectory(Path directory) {
            return new Options(dynamoDbPort, stepFunctionsPort, directory, tables, cancelStale, mapping, quotas,
                    handlerOverHttp);
        }

        public Options withPorts(int dynamoDb, int stepFunctionsApi) {
            return new Options(dynamoDb, stepFunctionsApi, dataDirectory, tables, cancelStale, mapping, quotas,
                    handlerOverHttp);
        }

        public Options withTables(Set<String> names) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, names, cancelStale, mapping, quotas,
                    handlerOverHttp);
        }

        public Options withCancelStale(boolean cancel) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancel, mapping, quotas,
                    handlerOverHttp);
        }

        public Options withMapping(MappingSettings settings) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, settings, quotas,
                    handlerOverHttp);
        }

        /** These options with the open-execution limit at {@code max}; the token buckets stay as they are. */
        public Options withMaxOpenExecutions(int max) {
            return withQuotas(quotas.with(StepFunctionsQuota.OPEN_EXECUTIONS, max));
        }

        /** These options with {@code stepFunctionsQuotas} enforced by the API and the engine. */
        public Options withQuotas(StepFunctionsQuotas stepFunctionsQuotas) {
            return new Options(dynamoDbPort, stepFunctionsPort, dataDirectory, tables, cancelStale, mapping,
                    stepFunctionsQuotas, handlerOverHttp);
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
                    quotas, overHttp);
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

            ExecutorService timerActions = register(Executors.newFixedThreadPool(2, named("punctual-timer-action")));
            ExecutorService tasks = register(Executors.newFixedThreadPool(TASK_THREADS, named("punctual-task")));
            ClockTimer timer = register(new ClockTimer(Clock.systemUTC(), timerActions, "punctual-timer"));
            faults = DynamoDbFaults.none();
            throttles = StepFunctionsThrottles.of(options.quotas(), timer.clock());
            stepFunctions = register(StepFunctionsLocal.builder()
                    .interpreter(resources -> new Interpreter(timer, resources, tasks, throttles.transitions()))
                    .taskResources(List.of(new DynamoDbTaskResource(inProcess.dynamoDb(), faults)))
                    .timer(timer)
                    .dataDirectory(options.under("stepfunctions"))
                    .region(LocalDefaults.REGION)
                    .accountId(LocalDefaults.ACCOUNT_ID)
                    .maxOpenExecutions(options.maxOpenExecutions())
                    .build());
            stepFunctionsServer = register(StepFunctionsServer.start(stepFunctions.engine(), throttles,
                    new InetSocketAddress(LocalDefaults.LOOPBACK, options.stepFunctionsPort())));
            stateMachineArn = deployExpireItem(stepFunctions.engine());
            stepFunctionsTransport = options.handlerOverHttp() ? null : new InProcessTransport(stepFunctions.engine(),
                    throttles);

            MappingSettings mapping = options.mapping().toBuilder().tableAllowList(options.tables()).build();
            poller = register(StreamPoller.builder()
                    .dynamoDb(inProcess.dynamoDb())
                    .streams(inProcess.streams())
                    .handlerFactory(this::handlerFor)
                    .filterPatterns(table -> StreamWiring.filterPatterns(table.ttlAttribute(), options.cancelStale()))
                    .settings(mapping)
                    .dataDirectory(options.under("stream"))
                    .region(LocalDefaults.REGION)
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
        return stepFunctions.engine();
    }

    /** What the Step Functions quotas have throttled so far (all zero without {@code --aws-quotas}). */
    public ThrottleCounts throttled() {
        return throttles.counts();
    }

    /** What a start on an existing data directory recovered. */
    public StepFunctionsLocal.Recovery recovery() {
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
        return Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn,
                StreamWiring.ENV_TTL_ATTRIBUTE, table.ttlAttribute(),
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, stepFunctionsEndpoint().toString(),
                StreamWiring.ENV_CANCEL_STALE, Boolean.toString(options.cancelStale()));
    }

    private RequestHandler<DynamodbEvent, StreamsEventResponse> handlerFor(WatchedTable table) {
        return handlers.computeIfAbsent(table, t -> stepFunctionsTransport == null
                ? new ExpiryStreamHandler(handlerEnvironment(t))
                : new ExpiryStreamHandler(handlerEnvironment(t), stepFunctionsTransport));
    }

    private static String deployExpireItem(StepFunctionsEngine engine) {
        String definition = StateMachineDefinitions.expireItem("aws");
        String arn = engine.stateMachineArn(LocalDefaults.STATE_MACHINE_NAME);
        try {
            engine.describeStateMachine(arn);
            // A data directory from an earlier version: running executions keep the definition they
            // started with, new ones get today's file.
            engine.updateStateMachine(arn, definition, LocalDefaults.ROLE_ARN);
        } catch (StepFunctionsException notThereYet) {
            engine.createStateMachine(LocalDefaults.STATE_MACHINE_NAME, definition, LocalDefaults.ROLE_ARN, "STANDARD");
        }
        return arn;
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
    }
}
