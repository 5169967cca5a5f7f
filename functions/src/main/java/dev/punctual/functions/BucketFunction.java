package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.Sleeper;
import dev.punctual.windowed.BucketInput;
import dev.punctual.windowed.BucketPhases;
import dev.punctual.windowed.BucketWorker;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The Lambda function the {@code expire-bucket} state machine invokes once a bucket's Wait ends:
 * the payload is the execution's input, the result its output. Thin: it reads the payload and hands
 * it to {@link BucketWorker}, logging one line per bucket (table, bucket, level, counts; never keys).
 *
 * <p>Configured by {@link dev.punctual.statemachine.StreamWiring#ENV_STATE_MACHINE_ARN} (the bucket
 * state machine, for child buckets and successors),
 * {@link dev.punctual.statemachine.StreamWiring#ENV_SCHEDULE_TABLE} and, optionally,
 * {@link dev.punctual.statemachine.StreamWiring#ENV_MAX_CONCURRENCY} (deletes in flight at once).
 */
public final class BucketFunction implements RequestHandler<Map<String, Object>, Map<String, Object>>, AutoCloseable {

    static {
        // Before LOG below configures Log4j: log4j2.xml puts it on every line as punctualVersion.
        System.setProperty(ExpiryStreamHandler.VERSION_PROPERTY, dev.punctual.statemachine.PunctualVersion.current());
    }

    private static final Logger LOG = LoggerFactory.getLogger(BucketFunction.class);

    private final BucketWorker worker;
    private final Collaborators collaborators;
    private final ExecutorService pool;

    /** The Lambda runtime's constructor: configuration and clients from {@code System.getenv()}. */
    public BucketFunction() {
        this(Collaborators.builder(System.getenv()).build());
    }

    /**
     * A function working with {@code collaborators}: the local runtime's in-process routes, or a test's.
     * Closing the function closes what {@link Collaborators.Builder#build()} built for it.
     */
    public BucketFunction(Collaborators collaborators) {
        this.collaborators = collaborators;
        ExpirySettings settings = collaborators.settings();
        this.pool = Executors.newFixedThreadPool(settings.maxConcurrency(), ExpiryStreamHandler.daemonThreads("punctual-bucket"));
        this.worker = new BucketWorker(new DynamoDbScheduleIndex(collaborators.dynamoDb(), settings.scheduleTable()),
                new DynamoDbItemDeleter(collaborators.dynamoDb()), collaborators.buckets(), collaborators.clock(),
                collaborators.sleeper(), pool, collaborators.phases());
    }

    /**
     * What the function works with: its settings, the bucket executions it starts, the DynamoDB client
     * for the index and the deletes, and the clock and sleeper it waits for a bucket's second with. A
     * builder, as {@link ExpiryStreamHandler.Collaborators} is, so a new part comes with a default.
     */
    public static final class Collaborators {

        private final ExpirySettings settings;
        private final Executions buckets;
        private final DynamoDbClient dynamoDb;
        private final Clock clock;
        private final Sleeper sleeper;
        private final BucketPhases phases;
        private final OwnedClients owned;

        private Collaborators(ExpirySettings settings, Executions buckets, DynamoDbClient dynamoDb, Clock clock,
                Sleeper sleeper, BucketPhases phases, OwnedClients owned) {
            this.settings = settings;
            this.buckets = buckets;
            this.dynamoDb = dynamoDb;
            this.clock = clock;
            this.sleeper = sleeper;
            this.phases = phases;
            this.owned = owned;
        }

        public ExpirySettings settings() {
            return settings;
        }

        public Executions buckets() {
            return buckets;
        }

        public DynamoDbClient dynamoDb() {
            return dynamoDb;
        }

        public Clock clock() {
            return clock;
        }

        public Sleeper sleeper() {
            return sleeper;
        }

        public BucketPhases phases() {
            return phases;
        }

        /** Closes what the builder built; what a caller passed in stays the caller's. */
        void close() throws Exception {
            owned.close();
        }

        /**
         * Collaborators configured from {@code environment}; every part not set on the builder is
         * built from it as in Lambda.
         *
         * @throws IllegalArgumentException naming the variable that is missing or malformed
         */
        public static Builder builder(Map<String, String> environment) {
            return new Builder(environment);
        }

        /** Builds the parts a caller did not set, from the environment. */
        public static final class Builder extends CollaboratorsBuilder<Builder> {

            private Sleeper sleeper = Sleeper.SYSTEM;
            private BucketPhases phases = BucketPhases.NONE;

            private Builder(Map<String, String> environment) {
                super(environment, ExpirySettings::forBucketFunction);
            }

            @Override
            Builder self() {
                return this;
            }

            /** Default: {@link Sleeper#SYSTEM}. */
            public Builder sleeper(Sleeper value) {
                this.sleeper = value;
                return this;
            }

            /** Default: {@link BucketPhases#NONE}; the local runtime's bench passes its timeline recorder. */
            public Builder phases(BucketPhases value) {
                this.phases = value;
                return this;
            }

            /** The collaborators; each call builds its own clients for the parts not set. */
            public Collaborators build() {
                OwnedClients owned = ownedClients();
                return new Collaborators(settings, owned.executions(executions), owned.dynamoDb(dynamoDb), clock, sleeper, phases, owned);
            }
        }
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> payload, Context context) {
        return PowertoolsLogging.withLogging(context, () -> handle(payload));
    }

    private Map<String, Object> handle(Map<String, Object> payload) {
        BucketInput input;
        try {
            input = BucketInput.fromPayload(payload);
        } catch (IllegalArgumentException e) {
            LOG.error("bucket payload not readable: " + e.getMessage(), entry("outcome", "failed"));
            throw e;
        }
        BucketWorker.Result result = worker.work(input);
        LOG.info("bucket worked",
                entry("table", input.bucket().table()),
                entry("bucket", input.executionName()),
                entry("bucketLevel", input.bucket().level().label()),
                entry("outcome", result.outcome()),
                entry("items", result.items()),
                entry("expired", result.expired()),
                entry("superseded", result.superseded()),
                entry("buckets", result.buckets()));
        return result.toOutput();
    }

    /** Releases the worker threads and the clients this function built (the local runtime's shutdown). */
    @Override
    public void close() throws Exception {
        pool.shutdown();
        collaborators.close();
    }
}
