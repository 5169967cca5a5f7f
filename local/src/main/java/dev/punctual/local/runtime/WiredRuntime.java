package dev.punctual.local.runtime;

import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.billing.CostMeter;
import dev.punctual.local.billing.DeletionLedger;
import dev.punctual.local.billing.HandlerCalls;
import dev.punctual.local.billing.MeteredDynamoDb;
import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import dev.punctual.local.dynamodb.InProcessDynamoDb;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.dynamodb.StreamRecordTrim;
import dev.punctual.local.events.EventBridgeServer;
import dev.punctual.local.events.EventStore;
import dev.punctual.local.events.PutEventsApi;
import dev.punctual.local.events.EventRules;
import dev.punctual.local.events.ExecutionStatusPublisher;
import dev.punctual.local.events.PutEventsFaults;
import dev.punctual.local.faults.RuntimeFaults;
import dev.punctual.local.metrics.RetainedMetrics;
import dev.punctual.local.modes.LocalMode;
import dev.punctual.local.modes.LocalModes;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.local.time.ClockTimer;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.local.time.Timer;
import dev.punctual.local.time.TimerSleeper;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StreamWiring;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The {@link LocalRuntime} as wired from its parts: starts each, in the order they depend on one
 * another, hands them out, and closes them in the reverse order. Each part sets itself up:
 * {@link LocalStepFunctions} its engine, API and state machine, {@link StreamFunction} its handlers,
 * the mode ({@link LocalModes}) what it adds (windowed: the index, its state machine and function).
 */
final class WiredRuntime implements LocalRuntime {

    private static final System.Logger LOG = System.getLogger(WiredRuntime.class.getName());

    private final LocalRuntime.Options options;
    /** The work of every pool the runtime starts, for {@link #awaitSettled}. */
    private final InFlight work = new InFlight();
    /**
     * Everything started, closed the latest first: the poller (no new work), the stream function's
     * handlers, the EventBridge endpoint and its store, windowed mode's bucket function, the Step
     * Functions API, engine and task threads, the runtime's own timer, and DynamoDB Local last.
     */
    private final Lifetimes owned = new Lifetimes("the local runtime", work);
    private final FaultInjection faultInjection;
    private final DynamoDbLocalServer dynamoDbServer;
    private final DynamoDbClient dynamoDb;
    private final Timer timer;
    private final LocalStepFunctions stepFunctions;
    /** The mode every watched table runs in, as wired here. */
    private final LocalMode.Wired wiredMode;
    private final RuntimeMode mode;
    private final StreamPoller poller;
    private final Endpoints endpoints;
    private final Observations observations;

    WiredRuntime(LocalRuntime.Options options) {
        this.options = options;
        CostMeter costMeter = new CostMeter();
        DeletionLedger deletions = new DeletionLedger();
        HandlerCalls handlerCalls = new HandlerCalls(ScheduleIndexTable.LOCAL_TABLE_NAME::equals);
        if (options.dataDirectory() != null) {
            // Before any part opens it: a directory a newer Punctual wrote is refused, whole.
            DataDirectoryManifest.open(options.dataDirectory());
        }
        try {
            dynamoDbServer = owned.own(DynamoDbLocalServer.start(
                    new DynamoDbLocalServer.Options(options.dynamoDbPort(), options.under("dynamodb"))));
            dynamoDb = owned.own(LocalDynamoDbClients.dynamoDb(dynamoDbServer.endpoint()));
            // The runtime's own traffic (deletes, stream reads) skips HTTP; these belong to the server.
            InProcessDynamoDb inProcess = dynamoDbServer.inProcess();
            timer = options.timer() != null ? options.timer() : ownTimer();
            Clock clock = timer.clock();
            RetainedMetrics metrics = new RetainedMetrics(clock, options.retention().of(Retained.METRIC_POINTS),
                    options.retention().of(Retained.METRIC_MINUTES));
            // Punctual's own DynamoDB calls (the state machine's deletes, the functions' index calls)
            // are metered for the cost report; the index is Punctual's, every other table a user's.
            MeteredDynamoDb punctualDynamoDb = new MeteredDynamoDb(inProcess.dynamoDb(), costMeter, deletions,
                    table -> !ScheduleIndexTable.LOCAL_TABLE_NAME.equals(table), clock);
            LambdaFunctions functions = new LambdaFunctions();
            RuntimeFaults faults = new RuntimeFaults(timer);
            PutEventsFaults eventFaults = new PutEventsFaults();
            faultInjection = new FaultInjection(faults.dynamoDb(), faults.lambda(), eventFaults, faults.counts());
            stepFunctions = owned.own(LocalStepFunctions.start(options, timer, punctualDynamoDb, faults, functions,
                    work));
            // Step Functions publishes its executions' status changes to the bus; a mode's rules route them.
            EventRules eventRules = owned.own(new EventRules(timer, owned.ownThreads(2, "punctual-event-delivery")));
            stepFunctions.engine().addListener(new ExecutionStatusPublisher(eventRules, LocalAccount.REGION, LocalAccount.ACCOUNT_ID));
            FunctionHost host = new FunctionHost(punctualDynamoDb, clock, new TimerSleeper(timer), metrics, costMeter,
                    stepFunctions, faults, eventRules);
            ModeContext parts = new ModeContext(dynamoDb, dynamoDbServer.endpoint(), functions, host,
                    options.bucketDeleteConcurrency(), owned, timer, options.retention(), inProcess.dynamoDb());
            wiredMode = LocalModes.of(options.mode()).wire(parts);
            mode = new RuntimeMode(wiredMode, this::handlerEnvironment);
            LocalBackfill.wire(parts, options.mode(), wiredMode);
            EventStore events = owned.own(EventStore.in(options.under("events"),
                    options.retention().of(Retained.EVENTS), clock));
            EventBridgeServer eventsServer = owned.own(EventBridgeServer.start(new PutEventsApi(events, eventFaults, clock,
                            LocalAccount.REGION, LocalAccount.ACCOUNT_ID, costMeter::expiryEvent), events,
                    new InetSocketAddress(LocalDefaults.LOOPBACK, options.eventsPort())));
            endpoints = new Endpoints(dynamoDbServer.endpoint(), stepFunctions.endpoint(),
                    LocalDefaults.endpoint(eventsServer.port()));
            StreamFunction streamFunction = owned.own(new StreamFunction(this::handlerEnvironment, host, handlerCalls));
            poller = owned.own(StreamPoller.builder()
                    .dynamoDb(inProcess.dynamoDb())
                    .streams(inProcess.streams())
                    .handlerFactory(streamFunction::handlerFor)
                    .mode(options.mode().label())
                    .timer(timer)
                    .filterPatterns(table -> StreamWiring.filterPatterns(table.ttlAttribute(), true))
                    .settings(options.mapping().toBuilder().tableAllowList(options.tables()).build())
                    .dataDirectory(options.under("stream"))
                    .deadLetterRetention(options.retention().of(Retained.DEAD_LETTERS))
                    .region(LocalAccount.REGION)
                    // A timer the caller brought is one a test moves; DynamoDB Local's stamps follow the wall clock.
                    .stampWithRuntimeClock(options.timer() != null)
                    .start());
            // DynamoDB Local keeps every stream record while it runs; bounded here, never one the poller still needs.
            // Its records are stamped by the wall clock, so their age is too, also when a test moves the timer.
            owned.own(new StreamRecordTrim(dynamoDbServer, options.retention().of(Retained.STREAM_RECORDS),
                    Clock.systemUTC(), poller::keepFrom).every(StreamRecordTrim.PERIOD, timer, owned.ownThreads(1, "punctual-stream-trim")));
            observations = new Observations(costMeter, stepFunctions, deletions, metrics, handlerCalls, events,
                    eventRules, dynamoDbServer.startTime());
            // Only now, with every function, rule and endpoint up, do the executions of a data directory run on.
            stepFunctions.resumeRecovered();
        } catch (RuntimeException e) {
            owned.closeAfter(e);
            throw e;
        }
    }

    /** The runtime's own timer on the system clock, with two threads for its actions; closed with the runtime. */
    private ClockTimer ownTimer() {
        return owned.own(new ClockTimer(Clock.systemUTC(), owned.ownThreads(2, "punctual-timer-action"), "punctual-timer"));
    }

    @Override
    public void awaitSettled(Duration timeout) {
        if (!(timer instanceof ManualTimer manual)) {
            throw new IllegalStateException("Only a runtime on a ManualTimer (Options.withTimer) can be settled: on the"
                    + " system clock time does not stand still while the runtime is asked whether it is done");
        }
        new Quiescence(manual, work, poller).await(timeout);
    }

    /**
     * The environment the handler gets for one table: the same variables the CDK construct sets in
     * Lambda, with the Step Functions endpoint pointed at this runtime. Asked once the endpoints are up.
     */
    private Map<String, String> handlerEnvironment(WatchedTable table) {
        Map<String, String> environment = new HashMap<>(StreamFunctionEnvironment.of(options.mode(), wiredMode.stateMachineArn(),
                table, endpoints.stepFunctions(), endpoints.dynamoDb(), options.cancelStale()));
        if (options.expiryEvents()) {
            environment.put(ExpiryEvents.ENV_EVENT_BUS, LocalDefaults.EVENT_BUS);
            environment.put(ExpiryEvents.ENV_EVENTS_ENDPOINT, endpoints.events().toString());
        }
        return Map.copyOf(environment);
    }

    @Override
    public LocalRuntime.Options options() {
        return options;
    }

    @Override
    public Timer timer() {
        return timer;
    }

    @Override
    public Endpoints endpoints() {
        return endpoints;
    }

    @Override
    public DynamoDbClient dynamoDb() {
        return dynamoDb;
    }

    @Override
    public StepFunctionsEngine stepFunctionsEngine() {
        return stepFunctions.engine();
    }

    @Override
    public StreamPoller streamPoller() {
        return poller;
    }

    @Override
    public RuntimeMode mode() {
        return mode;
    }

    @Override
    public Observations observations() {
        return observations;
    }

    @Override
    public FaultInjection faults() {
        return faultInjection;
    }

    @Override
    public void close() {
        try {
            owned.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Local runtime shut down with errors", e);
        }
    }
}
