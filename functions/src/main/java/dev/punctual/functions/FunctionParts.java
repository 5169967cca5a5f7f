package dev.punctual.functions;

import dev.punctual.events.EventBridgeBus;
import dev.punctual.events.EventBus;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.Sleeper;
import dev.punctual.expiry.ThrottleBackoff;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * What a function works with, for both functions alike: its settings (the environment, read once by
 * {@link ExpirySettings}), the Step Functions executions it starts, a DynamoDB client, where expiry
 * events go, its clock and the one {@link Sleeper} everything waits on, its backoff on throttling and
 * its metric sink. Each part is the one given to the builder, or else built from the settings the first
 * time it is asked for (in a function's constructor, so a SnapStart snapshot holds it); closing the
 * parts closes what they built and nothing a caller gave.
 */
public final class FunctionParts implements AutoCloseable {

    private final ExpirySettings settings;
    private final Clock clock;
    private final Sleeper sleeper;
    private final ThrottleBackoff backoff;
    private final MetricSink metrics;
    private final SdkHttpClient stepFunctionsTransport;
    private final List<AutoCloseable> built = new ArrayList<>();
    private Executions executions;
    private DynamoDbClient dynamoDb;
    private SfnClient stepFunctions;
    private EventBus eventBus;
    private boolean eventBusRead;

    private FunctionParts(Builder b) {
        this.settings = b.settings;
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.backoff = b.backoff != null ? b.backoff : new ThrottleBackoff(clock, sleeper, ThreadLocalRandom.current());
        this.metrics = b.metrics != null ? b.metrics
                : settings.inLambda() ? new PowertoolsMetricSink() : MetricSink.DISCARD;
        this.stepFunctionsTransport = b.stepFunctionsTransport;
        this.executions = b.executions;
        this.dynamoDb = b.dynamoDb;
        this.eventBus = b.eventBus;
        this.eventBusRead = b.eventBus != null;
    }

    /**
     * Parts of the stream function configured from {@code environment} (the variables of
     * {@link dev.punctual.statemachine.StreamWiring}).
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public static Builder builder(Map<String, String> environment) {
        return builder(ExpirySettings.fromEnvironment(environment));
    }

    /** Parts with {@code settings}: {@link ExpirySettings#forBucketFunction} for the bucket function. */
    public static Builder builder(ExpirySettings settings) {
        return new Builder(settings);
    }

    public ExpirySettings settings() {
        return settings;
    }

    /** The executions of the settings' state machine: an {@link SfnExecutions} of its own unless given. */
    public synchronized Executions executions() {
        if (executions == null) {
            executions = own(stepFunctionsTransport == null ? SfnExecutions.create(settings)
                    : SfnExecutions.create(settings, stepFunctionsTransport));
        }
        return executions;
    }

    /**
     * A Step Functions client of its own, for the endpoint the settings name (through the transport when
     * one was given), for a call on another state machine than the settings' (the backfill starting itself
     * when CloudFormation asks it to).
     */
    public synchronized SfnClient stepFunctions() {
        if (stepFunctions == null) {
            stepFunctions = own(AwsClients.stepFunctions(settings, stepFunctionsTransport));
        }
        return stepFunctions;
    }

    /** A DynamoDB client: one of its own, for the endpoint the settings name, unless given. */
    public synchronized DynamoDbClient dynamoDb() {
        if (dynamoDb == null) {
            dynamoDb = own(AwsClients.dynamoDb(settings));
        }
        return dynamoDb;
    }

    /** Where expiry events go: the one given, or an {@link EventBridgeBus} on the bus the settings name; empty when off. */
    public synchronized Optional<EventBus> eventBus() {
        if (!eventBusRead) {
            eventBusRead = true;
            settings.eventBus().ifPresent(bus -> eventBus = own(new EventBridgeBus(AwsClients.eventBridge(settings), bus, true)));
        }
        return Optional.ofNullable(eventBus);
    }

    public Clock clock() {
        return clock;
    }

    /** What every wait of the function waits on: for a due second, between retries, between event batches. */
    public Sleeper sleeper() {
        return sleeper;
    }

    /** Backoff on throttling: the one given, or full jitter on {@link #clock()} waiting on {@link #sleeper()}. */
    public ThrottleBackoff backoff() {
        return backoff;
    }

    /** Where metrics go: the sink given, else embedded metric format inside Lambda and nowhere outside it. */
    public MetricSink metrics() {
        return metrics;
    }

    private <T extends AutoCloseable> T own(T part) {
        built.add(part);
        return part;
    }

    /** Closes what these parts built; what a caller gave stays the caller's. */
    @Override
    public synchronized void close() throws Exception {
        Exception failure = null;
        for (AutoCloseable part : built) {
            try {
                part.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        built.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** Sets the parts a caller replaces: the local runtime's in-process routes, a test's fakes. */
    public static final class Builder {

        private final ExpirySettings settings;
        private Executions executions;
        private SdkHttpClient stepFunctionsTransport;
        private DynamoDbClient dynamoDb;
        private EventBus eventBus;
        private Clock clock = Clock.systemUTC();
        private Sleeper sleeper = Sleeper.SYSTEM;
        private ThrottleBackoff backoff;
        private MetricSink metrics;

        private Builder(ExpirySettings settings) {
            this.settings = settings;
        }

        /** Default: an {@link SfnExecutions} with its own client. */
        public Builder executions(Executions value) {
            this.executions = value;
            return this;
        }

        /**
         * The default executions' requests go through {@code transport} (the local runtime's in-process
         * route to its engine) instead of an HTTP client; the transport stays the caller's.
         */
        public Builder stepFunctionsTransport(SdkHttpClient transport) {
            this.stepFunctionsTransport = transport;
            return this;
        }

        /** Default: a client of its own for the endpoint the settings name. */
        public Builder dynamoDb(DynamoDbClient value) {
            this.dynamoDb = value;
            return this;
        }

        /** Default when the settings name a bus: an {@link EventBridgeBus} with its own client; none otherwise. */
        public Builder eventBus(EventBus value) {
            this.eventBus = value;
            return this;
        }

        /** Default: {@link Clock#systemUTC()}. */
        public Builder clock(Clock value) {
            this.clock = value;
            return this;
        }

        /** Default: {@link Sleeper#SYSTEM}. */
        public Builder sleeper(Sleeper value) {
            this.sleeper = value;
            return this;
        }

        /** Default: backoff with full jitter on the clock, waiting on the sleeper. */
        public Builder backoff(ThrottleBackoff value) {
            this.backoff = value;
            return this;
        }

        /** Default: embedded metric format inside Lambda, nowhere outside it. */
        public Builder metrics(MetricSink value) {
            this.metrics = value;
            return this;
        }

        public FunctionParts build() {
            return new FunctionParts(this);
        }
    }
}
