package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.events.IEventBus;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.sns.ITopic;

/**
 * What {@link PunctualExpiry} needs: the table (with a stream) and its TTL attribute, plus tuning
 * knobs whose defaults come from {@link StreamWiring} so the cloud and the local runtime agree.
 * Immutable; build with {@link #builder()}, which validates every value.
 */
public final class PunctualExpiryProps {

    /** The largest batch an event source mapping for a DynamoDB stream accepts. */
    public static final int MAX_BATCH_SIZE = 10_000;
    /** Concurrent batches per shard the event source mapping allows at most. */
    public static final int MAX_PARALLELIZATION_FACTOR = 10;
    /** The largest bounded retry count the event source mapping accepts. */
    public static final int MAX_RETRY_ATTEMPTS = 10_000;
    /** The shortest bounded maximum record age the event source mapping accepts. */
    public static final Duration MIN_RECORD_AGE = Duration.ofSeconds(60);
    /**
     * Default for {@link Builder#lagAlarmThreshold}: Punctual promises deletion within about a second of
     * the TTL; the measured lag also holds the stream's delivery delay (usually well under a second), so
     * a p99 five times the promise means expiry is late, not noisy.
     */
    public static final Duration DEFAULT_LAG_ALARM_THRESHOLD = Duration.ofSeconds(5);
    /** The longest bounded maximum record age the event source mapping accepts (streams keep 24 hours). */
    public static final Duration MAX_RECORD_AGE = Duration.ofDays(7);

    private final ITable table;
    private final String ttlAttribute;
    private final ExpiryMode mode;
    private final int batchSize;
    private final int parallelizationFactor;
    private final int maxRetryAttempts;
    private final Duration maxRecordAge;
    private final ITopic alarmTopic;
    private final boolean cancelStale;
    private final boolean tracing;
    private final ApplicationLogLevel logLevel;
    private final int maxConcurrency;
    private final int bucketDeleteConcurrency;
    private final RetentionDays logRetention;
    private final Path functionJar;
    private final Duration lagAlarmThreshold;
    private final IEventBus expiryEvents;
    private final boolean includeOldImage;
    private final boolean backfillOnCreate;
    private final String stateMachineBaseName;

    private PunctualExpiryProps(Builder b) {
        this.table = Objects.requireNonNull(b.table, "table is required: an ITable with a stream");
        this.ttlAttribute = StreamWiring.requireSafeAttributeName(b.ttlAttribute);
        this.mode = Objects.requireNonNull(b.mode, "mode is required: one of ExpiryMode."
                + java.util.Arrays.stream(ExpiryMode.values()).map(Enum::name).toList() + ", PER_ITEM by default");
        this.batchSize = requireRange("batchSize", b.batchSize, 1, MAX_BATCH_SIZE);
        this.parallelizationFactor = requireRange("parallelizationFactor", b.parallelizationFactor, 1,
                MAX_PARALLELIZATION_FACTOR);
        this.maxRetryAttempts = requireRange("maxRetryAttempts", b.maxRetryAttempts, 0, MAX_RETRY_ATTEMPTS);
        this.maxRecordAge = Objects.requireNonNull(b.maxRecordAge, "maxRecordAge");
        if (maxRecordAge.compareTo(MIN_RECORD_AGE) < 0 || maxRecordAge.compareTo(MAX_RECORD_AGE) > 0
                || maxRecordAge.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("maxRecordAge must be whole seconds between " + MIN_RECORD_AGE
                    + " and " + MAX_RECORD_AGE + " (the event source mapping's bounds), got " + maxRecordAge);
        }
        this.alarmTopic = b.alarmTopic;
        this.cancelStale = cancelStale(mode, b.cancelStale);
        this.tracing = b.tracing;
        this.logLevel = Objects.requireNonNull(b.logLevel, "logLevel");
        this.maxConcurrency = requireRange("maxConcurrency", b.maxConcurrency, 1, StreamWiring.MAX_MAX_CONCURRENCY);
        this.bucketDeleteConcurrency = bucketDeleteConcurrency(mode, b.bucketDeleteConcurrency);
        this.logRetention = Objects.requireNonNull(b.logRetention, "logRetention");
        this.functionJar = b.functionJar;
        this.lagAlarmThreshold = Objects.requireNonNull(b.lagAlarmThreshold, "lagAlarmThreshold");
        if (lagAlarmThreshold.isNegative() || lagAlarmThreshold.isZero()) {
            throw new IllegalArgumentException("lagAlarmThreshold must be positive, got " + lagAlarmThreshold);
        }
        this.expiryEvents = b.expiryEvents;
        this.includeOldImage = b.includeOldImage;
        this.backfillOnCreate = b.backfillOnCreate;
        this.stateMachineBaseName = b.stateMachineBaseName;
        if (includeOldImage && expiryEvents == null) {
            throw new IllegalArgumentException("includeOldImage(true) puts the item's old image into expiry events,"
                    + " which are off: set expiryEvents(bus) too (EventBus.fromEventBusName(scope, id, \"default\") for the default bus)");
        }
    }

    /** A builder with the defaults described on each setter. */
    public static Builder builder() {
        return new Builder();
    }

    public ITable table() {
        return table;
    }

    public String ttlAttribute() {
        return ttlAttribute;
    }

    public ExpiryMode mode() {
        return mode;
    }

    public int batchSize() {
        return batchSize;
    }

    public int parallelizationFactor() {
        return parallelizationFactor;
    }

    public int maxRetryAttempts() {
        return maxRetryAttempts;
    }

    public Duration maxRecordAge() {
        return maxRecordAge;
    }

    public Optional<ITopic> alarmTopic() {
        return Optional.ofNullable(alarmTopic);
    }

    /** Whether stale executions are stopped: the builder's choice per item, always {@code false} windowed. */
    public boolean cancelStale() {
        return cancelStale;
    }

    public boolean tracing() {
        return tracing;
    }

    public ApplicationLogLevel logLevel() {
        return logLevel;
    }

    public int maxConcurrency() {
        return maxConcurrency;
    }

    /**
     * The bucket delete concurrency: deletes the bucket function has in flight at once, windowed; the
     * default in a mode without a bucket function, where nothing reads it.
     */
    public int bucketDeleteConcurrency() {
        return bucketDeleteConcurrency;
    }

    public RetentionDays logRetention() {
        return logRetention;
    }

    /** The expiry lag p99 above which the lag alarm fires. */
    public Duration lagAlarmThreshold() {
        return lagAlarmThreshold;
    }

    /** The bus {@code ItemExpired} events go to; empty when expiry events are off (the default). */
    public Optional<IEventBus> expiryEvents() {
        return Optional.ofNullable(expiryEvents);
    }

    /** Whether each expiry event carries the item's old image. */
    public boolean includeOldImage() {
        return includeOldImage;
    }

    /** Whether the backfill runs by itself once, when the construct is first deployed. */
    public boolean backfillOnCreate() {
        return backfillOnCreate;
    }

    /** The state machine's name before the mode's suffix, when set; see {@link Builder#stateMachineBaseName}. */
    Optional<String> stateMachineBaseName() {
        return Optional.ofNullable(stateMachineBaseName);
    }

    /** The jar to deploy: the one set on the builder, else the one punctual-cdk carries (see {@link FunctionBundle}). */
    public Path functionJar() {
        return functionJar != null ? functionJar : FunctionBundle.locate();
    }

    /**
     * A mode that cannot stop stale executions ({@link ExpiryMode#stopsStaleExecutions()}; windowed: a
     * bucket execution serves many items, and an index entry made stale is harmless because the bucket's
     * delete is conditional) has cancelStale off. Asking for it there is a misunderstanding worth
     * reporting rather than ignoring.
     */
    private static boolean cancelStale(ExpiryMode mode, Boolean requested) {
        if (!mode.stopsStaleExecutions()) {
            if (Boolean.TRUE.equals(requested)) {
                throw new IllegalArgumentException("cancelStale applies only to modes that stop stale executions: "
                        + mode.label() + " mode never stops executions (a stale entry deletes nothing, the delete is"
                        + " conditional); leave cancelStale unset or false with mode(ExpiryMode." + mode.name() + ")");
            }
            return false;
        }
        return requested == null || requested;
    }

    /**
     * Only a mode that deletes in buckets ({@link ExpiryMode#deletesInBuckets()}: windowed) has a bucket
     * function whose deletes it paces; asking for it in another mode is a misunderstanding worth reporting
     * rather than ignoring, as {@link #cancelStale} is in windowed mode.
     */
    private static int bucketDeleteConcurrency(ExpiryMode mode, Integer requested) {
        if (requested == null) {
            return StreamWiring.DEFAULT_BUCKET_CONCURRENCY;
        }
        if (!mode.deletesInBuckets()) {
            throw new IllegalArgumentException("bucketDeleteConcurrency applies only to modes that delete in buckets: "
                    + mode.label() + " mode has no bucket function (each item's own execution deletes it); leave"
                    + " bucketDeleteConcurrency unset with mode(ExpiryMode." + mode.name() + "), or set"
                    + " mode(ExpiryMode.WINDOWED)");
        }
        return requireRange("bucketDeleteConcurrency", requested, 1, StreamWiring.MAX_MAX_CONCURRENCY);
    }

    private static int requireRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    /** Builder for {@link PunctualExpiryProps}. */
    public static final class Builder {
        private ITable table;
        private String ttlAttribute;
        private ExpiryMode mode = ExpiryMode.PER_ITEM;
        private int batchSize = StreamWiring.DEFAULT_BATCH_SIZE;
        private int parallelizationFactor = 1;
        private int maxRetryAttempts = StreamWiring.DEFAULT_MAX_RETRY_ATTEMPTS;
        private Duration maxRecordAge = StreamWiring.DEFAULT_MAX_RECORD_AGE;
        private ITopic alarmTopic;
        private Boolean cancelStale;
        private boolean tracing;
        private ApplicationLogLevel logLevel = ApplicationLogLevel.INFO;
        private int maxConcurrency = StreamWiring.DEFAULT_MAX_CONCURRENCY;
        private Integer bucketDeleteConcurrency;
        private RetentionDays logRetention = RetentionDays.ONE_MONTH;
        private Path functionJar;
        private Duration lagAlarmThreshold = DEFAULT_LAG_ALARM_THRESHOLD;
        private IEventBus expiryEvents;
        private boolean includeOldImage;
        private boolean backfillOnCreate = true;
        private String stateMachineBaseName;

        private Builder() {
        }

        /**
         * Required: the table whose items expire. It must have a stream (NEW_AND_OLD_IMAGES); a table
         * this app does not manage comes from {@link PunctualExpiry#importTable}.
         */
        public Builder table(ITable table) {
            this.table = table;
            return this;
        }

        /** Required: the table's TTL attribute (a Number of epoch seconds, as native TTL reads it). */
        public Builder ttlAttribute(String ttlAttribute) {
            this.ttlAttribute = ttlAttribute;
            return this;
        }

        /**
         * How expirations are scheduled, default {@link ExpiryMode#PER_ITEM}: one execution per item.
         * {@link ExpiryMode#WINDOWED} adds a schedule index table, a bucket function and the
         * {@code expire-bucket} state machine instead of {@code expire-item}: one execution per non-empty
         * time bucket, each item still deleted in its own TTL second.
         */
        public Builder mode(ExpiryMode mode) {
            this.mode = mode;
            return this;
        }

        /** Records per invocation, default {@link StreamWiring#DEFAULT_BATCH_SIZE}. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** Concurrent batches per shard (1-10), default 1: per-item order within a shard is kept. */
        public Builder parallelizationFactor(int parallelizationFactor) {
            this.parallelizationFactor = parallelizationFactor;
            return this;
        }

        /** Retries of a failing batch before its record range goes to the dead-letter queue, default
         * {@link StreamWiring#DEFAULT_MAX_RETRY_ATTEMPTS}. */
        public Builder maxRetryAttempts(int maxRetryAttempts) {
            this.maxRetryAttempts = maxRetryAttempts;
            return this;
        }

        /** Records older than this go to the dead-letter queue, default {@link StreamWiring#DEFAULT_MAX_RECORD_AGE}. */
        public Builder maxRecordAge(Duration maxRecordAge) {
            this.maxRecordAge = maxRecordAge;
            return this;
        }

        /** Optional: every alarm notifies this topic when it fires and when it clears. */
        public Builder alarmTopic(ITopic alarmTopic) {
            this.alarmTopic = alarmTopic;
            return this;
        }

        /**
         * Per-item mode, default on: stop pending executions when an item is deleted or its TTL is removed
         * or changed. Off, stale executions still delete nothing (the delete is conditional) but run to
         * their wait's end, costing their transitions and an open-execution slot until then. Windowed
         * mode never cancels; setting {@code true} there is rejected.
         */
        public Builder cancelStale(boolean cancelStale) {
            this.cancelStale = cancelStale;
            return this;
        }

        /** Default off: X-Ray tracing for the function and the state machine (billed per trace). */
        public Builder tracing(boolean tracing) {
            this.tracing = tracing;
            return this;
        }

        /** The function's Powertools log level, default INFO. */
        public Builder logLevel(ApplicationLogLevel logLevel) {
            this.logLevel = logLevel;
            return this;
        }

        /** StartExecution calls in flight at once within a batch, default
         * {@link StreamWiring#DEFAULT_MAX_CONCURRENCY}. */
        public Builder maxConcurrency(int maxConcurrency) {
            this.maxConcurrency = maxConcurrency;
            return this;
        }

        /**
         * Windowed mode: the bucket delete concurrency, DeleteItems the bucket function has in flight at
         * once when a second's items fall due, 1 to {@link StreamWiring#MAX_MAX_CONCURRENCY}, default
         * {@link StreamWiring#DEFAULT_BUCKET_CONCURRENCY} (the local runtime's
         * {@code --bucket-delete-concurrency} has the same default). Per-item mode has no bucket function;
         * setting it there is rejected.
         */
        public Builder bucketDeleteConcurrency(int bucketDeleteConcurrency) {
            this.bucketDeleteConcurrency = bucketDeleteConcurrency;
            return this;
        }

        /** Retention of the function's and the state machine's log groups, default one month. */
        public Builder logRetention(RetentionDays logRetention) {
            this.logRetention = logRetention;
            return this;
        }

        /**
         * Optional: a functions jar you built yourself (e.g. a fork), default the bundle punctual-cdk carries
         * on its classpath.
         */
        public Builder functionJar(Path functionJar) {
            this.functionJar = functionJar;
            return this;
        }

        /**
         * The lag alarm fires when the expiry lag's p99 over five minutes exceeds this, default
         * {@link #DEFAULT_LAG_ALARM_THRESHOLD}. The lag is measured from the TTL to the stream record of
         * Punctual's delete, so it includes the stream's delay: an upper bound.
         */
        public Builder lagAlarmThreshold(Duration lagAlarmThreshold) {
            this.lagAlarmThreshold = lagAlarmThreshold;
            return this;
        }

        /**
         * Optional, default off: publish an {@code ItemExpired} event (source {@code punctual}, detail type
         * {@code Item Expired}) to {@code bus} for every expiry, whether Punctual or native TTL deleted
         * the item. The function may then call {@code events:PutEvents} on this bus only. For the
         * account's default bus pass {@code EventBus.fromEventBusName(scope, id, "default")}.
         */
        public Builder expiryEvents(IEventBus bus) {
            this.expiryEvents = bus;
            return this;
        }

        /**
         * Default off: put the item's old image (DynamoDB JSON) into each expiry event. Images are user
         * data; one that would make the event larger than EventBridge's 256 KB is left out and the event
         * says {@code oldImageOmitted: "size"}. Needs {@link #expiryEvents}.
         */
        public Builder includeOldImage(boolean includeOldImage) {
            this.includeOldImage = includeOldImage;
            return this;
        }

        /**
         * Default on: when the construct is first deployed, start its backfill workflow once for the table,
         * so the items it already holds are scheduled too (the way the mode schedules them). Off, start it
         * yourself with {@code aws stepfunctions start-execution --state-machine-arn <BackfillStateMachineArn>
         * --input '{"table":"<name>"}'}. Only the first deployment starts it; updates never do.
         */
        public Builder backfillOnCreate(boolean backfillOnCreate) {
            this.backfillOnCreate = backfillOnCreate;
            return this;
        }

        /**
         * The state machine's name before the mode's suffix, default a name unique within the app. The
         * packaged template ({@link PunctualTemplateStack}) names it after the stack's id at deploy time,
         * since one template is deployed once per table into the same account and Region.
         */
        Builder stateMachineBaseName(String stateMachineBaseName) {
            this.stateMachineBaseName = stateMachineBaseName;
            return this;
        }

        /** @throws IllegalArgumentException naming the first invalid value */
        public PunctualExpiryProps build() {
            return new PunctualExpiryProps(this);
        }
    }
}
