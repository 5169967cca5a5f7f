package dev.punctual.local.runtime;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.expiry.RecordedMetrics;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.local.time.ClockTimer;
import dev.punctual.local.time.Timer;
import dev.punctual.local.time.TimerSleeper;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.StateMachineListItem;
import software.amazon.awssdk.services.sfn.model.StateMachineType;

/**
 * Punctual's own parts attached to AWS-compatible services that someone else runs (LocalStack, moto):
 * the stream poller reads the stream of the DynamoDB behind {@link ExternalServices#dynamoDb()} and
 * invokes the real {@link ExpiryStreamHandler}, which starts executions of the expire-item state machine
 * on {@link ExternalServices#stepFunctions()}; that service runs the Wait and the conditional delete. It
 * starts no DynamoDB Local, no engine, no EventBridge endpoint and no console: what runs the workflow is
 * the service attached to, which is the point (a second interpreter checks ours).
 *
 * <p>The state machine is created from the same file and with the same substitutions as the CDK
 * construct and the embedded runtime use, or updated to it when the service already holds one of that
 * name. Only per-item mode runs this way: {@link #WINDOWED_NEEDS_LAMBDA} says why.
 */
public final class AttachedRuntime implements AutoCloseable {

    /** Why windowed mode cannot attach: what a user is told when they ask for it. */
    public static final String WINDOWED_NEEDS_LAMBDA = "windowed mode cannot run attached to external services:"
            + " its expire-bucket state machine invokes Punctual's bucket function as a Lambda Task, and the"
            + " bucket and backfill functions are reached through Lambda and EventBridge rules that Punctual can"
            + " only host in-process beside its own engine (moto runs Lambda only in Docker, LocalStack needs the"
            + " function deployed to it); run per-item mode attached, or windowed mode on the embedded runtime";

    /** Whether the expire-item state machine was made by this start or was there already. */
    public enum Deployment {
        /** The service held no state machine of that name; this start created it. */
        CREATED,
        /** The service held one of that name; this start set its definition to today's file. */
        UPDATED
    }

    private static final System.Logger LOG = System.getLogger(AttachedRuntime.class.getName());

    private final LocalRuntime.Options options;
    private final ExternalServices services;
    /** Everything started, closed the latest first: the poller, the handlers, the clients, the timer. */
    private final Lifetimes owned = new Lifetimes("the attached runtime");
    private final RecordedMetrics metrics = new RecordedMetrics();
    private final Map<WatchedTable, ExpiryStreamHandler> handlers = new ConcurrentHashMap<>();
    private final Timer timer;
    private final DynamoDbClient dynamoDb;
    private final String stateMachineArn;
    private final Deployment deployment;
    private final StreamPoller poller;

    private AttachedRuntime(LocalRuntime.Options options) {
        this.options = options;
        this.services = options.external();
        try {
            timer = options.timer() != null ? options.timer()
                    : owned.own(new ClockTimer(Clock.systemUTC(), owned.ownThreads(2, "punctual-timer-action"), "punctual-timer"));
            dynamoDb = owned.own(LocalDynamoDbClients.dynamoDb(services.dynamoDb()));
            DynamoDbStreamsClient streams = owned.own(LocalDynamoDbClients.streams(services.dynamoDb()));
            reach("DynamoDB", services.dynamoDb(), () -> dynamoDb.listTables(b -> b.limit(1)));
            try (SfnClient stepFunctions = LocalClients.stepFunctions(services.stepFunctions())) {
                Optional<String> existing = reach("Step Functions", services.stepFunctions(),
                        () -> find(stepFunctions, LocalDefaults.STATE_MACHINE_NAME));
                String definition = StateMachineDefinitions.expireItem(LocalAccount.PARTITION);
                if (existing.isPresent()) {
                    stepFunctions.updateStateMachine(b -> b.stateMachineArn(existing.get()).definition(definition));
                    stateMachineArn = existing.get();
                    deployment = Deployment.UPDATED;
                } else {
                    stateMachineArn = stepFunctions.createStateMachine(b -> b.name(LocalDefaults.STATE_MACHINE_NAME)
                            .definition(definition).roleArn(LocalDefaults.ROLE_ARN).type(StateMachineType.STANDARD))
                            .stateMachineArn();
                    deployment = Deployment.CREATED;
                }
            }
            owned.own(this::closeHandlers);
            poller = owned.own(StreamPoller.builder()
                    .dynamoDb(dynamoDb)
                    .streams(streams)
                    .handlerFactory(this::handlerFor)
                    .mode(options.mode().label())
                    .timer(timer)
                    .filterPatterns(table -> StreamWiring.filterPatterns(table.ttlAttribute(), true))
                    .settings(options.mapping().toBuilder().tableAllowList(options.tables()).build())
                    .dataDirectory(options.under("stream"))
                    .region(LocalAccount.REGION)
                    .start());
        } catch (RuntimeException e) {
            owned.closeAfter(e);
            throw e;
        }
    }

    /**
     * Attaches to {@code options.external()}: deploys the expire-item machine there and starts reading
     * streams. Returns once the poller runs.
     *
     * @throws IllegalArgumentException when the options attach to nothing, or ask for windowed mode
     * @throws IllegalStateException when a service cannot be reached, saying which and where
     */
    public static AttachedRuntime start(LocalRuntime.Options options) {
        Objects.requireNonNull(options, "options");
        if (!options.attached()) {
            throw new IllegalArgumentException("These options attach to no external services: start them with LocalRuntime.start");
        }
        if (options.mode() != ExpiryMode.PER_ITEM) {
            throw new IllegalArgumentException(WINDOWED_NEEDS_LAMBDA);
        }
        return new AttachedRuntime(options);
    }

    /** The state machine named {@code name} on the service, if it holds one. */
    private static Optional<String> find(SfnClient stepFunctions, String name) {
        return stepFunctions.listStateMachinesPaginator(b -> { }).stateMachines().stream()
                .filter(machine -> machine.name().equals(name))
                .map(StateMachineListItem::stateMachineArn)
                .findFirst();
    }

    /** {@code call}'s result; a connection failure becomes a message that says which service is not there. */
    private static <T> T reach(String service, URI endpoint, Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkClientException e) {
            throw new IllegalStateException("Cannot reach " + service + " at " + endpoint + " (" + e.getMessage()
                    + "): start the service first, or pass the endpoint it listens on", e);
        }
    }

    /** The table's function, as the poller invokes it: one real handler per table, built on first use. */
    private RequestHandler<DynamodbEvent, StreamsEventResponse> handlerFor(WatchedTable table) {
        return handlers.computeIfAbsent(table, this::newHandler)::handleRequest;
    }

    private ExpiryStreamHandler newHandler(WatchedTable table) {
        return new ExpiryStreamHandler(FunctionParts.builder(handlerEnvironment(table))
                .dynamoDb(dynamoDb)
                .clock(timer.clock())
                .sleeper(new TimerSleeper(timer))
                .metrics(metrics)
                .build());
    }

    /**
     * The environment the handler gets for {@code table}: the variables the CDK construct sets in Lambda,
     * with the Step Functions endpoint pointed at the service attached to. No expiry events: there is no
     * EventBridge endpoint of Punctual's here.
     */
    public Map<String, String> handlerEnvironment(WatchedTable table) {
        return StreamFunctionEnvironment.of(options.mode(), stateMachineArn, table, services.stepFunctions(),
                services.dynamoDb(), options.cancelStale());
    }

    private void closeHandlers() {
        for (ExpiryStreamHandler handler : handlers.values()) {
            try {
                handler.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "A stream handler did not close cleanly", e);
            }
        }
    }

    /** The options this runtime runs with. */
    public LocalRuntime.Options options() {
        return options;
    }

    /** The services attached to. */
    public ExternalServices services() {
        return services;
    }

    /** ARN of the expire-item state machine on the attached Step Functions, as that service named it. */
    public String stateMachineArn() {
        return stateMachineArn;
    }

    /** Whether this start created the state machine or updated one already there. */
    public Deployment deployment() {
        return deployment;
    }

    /** A DynamoDB client for the attached DynamoDB, owned by the runtime. */
    public DynamoDbClient dynamoDb() {
        return dynamoDb;
    }

    /** The stream poller (watched tables, dead letters, metrics). */
    public StreamPoller streamPoller() {
        return poller;
    }

    /** The metrics the stream handlers published: what the function would publish to CloudWatch in AWS. */
    public RecordedMetrics metrics() {
        return metrics;
    }

    /** The timer the poller and the handlers run on. */
    public Timer timer() {
        return timer;
    }

    /** Stops the poller first (no new work), then the handlers and the clients; the services keep running. */
    @Override
    public void close() {
        try {
            owned.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Attached runtime shut down with errors", e);
        }
    }
}
