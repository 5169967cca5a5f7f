package dev.punctual.local.stream;

import dev.punctual.statemachine.StreamWiring;
import java.time.Duration;
import java.util.Set;

/**
 * The event source mapping's parameters, named as AWS names them, plus the local poller's own tunables.
 * {@code FunctionResponseTypes=ReportBatchItemFailures} is always on and {@code StartingPosition} is
 * always {@code TRIM_HORIZON} for a shard without a checkpoint.
 *
 * @param batchSize                      records per invocation, 1-10,000
 * @param maximumBatchingWindowInSeconds how long to gather records before invoking, 0-300
 * @param bisectBatchOnFunctionError     split a failed batch in two and retry the halves
 * @param maximumRetryAttempts           retries of a failing record, -1 (until it is too old) to 10,000
 * @param maximumRecordAgeInSeconds      records older than this are not invoked: -1 (no limit) or 60-604,800
 * @param parallelizationFactor          concurrent batches per shard; only 1 is supported locally
 * @param pollInterval                   pause before polling a shard again when it had nothing new
 * @param retryDelay                     pause before retrying a failed invocation
 * @param discoveryInterval              how often new tables (and TTL/stream changes) are looked for
 * @param tableAllowList                 table names to watch; empty watches every table with a stream and TTL
 */
public record MappingSettings(
        int batchSize,
        int maximumBatchingWindowInSeconds,
        boolean bisectBatchOnFunctionError,
        int maximumRetryAttempts,
        long maximumRecordAgeInSeconds,
        int parallelizationFactor,
        Duration pollInterval,
        Duration retryDelay,
        Duration discoveryInterval,
        Set<String> tableAllowList) {

    /**
     * Default pause between polls of an idle shard: AWS polls about four times a second; locally twenty a
     * second keeps stream-to-function latency near 50 ms at a small CPU cost.
     */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(50);
    /** Default pause before a retry. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(200);
    /** Default table discovery period. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(1);

    public MappingSettings {
        check(batchSize >= 1 && batchSize <= 10_000, "BatchSize must be 1-10000, got " + batchSize);
        check(maximumBatchingWindowInSeconds >= 0 && maximumBatchingWindowInSeconds <= 300,
                "MaximumBatchingWindowInSeconds must be 0-300, got " + maximumBatchingWindowInSeconds);
        check(maximumRetryAttempts >= -1 && maximumRetryAttempts <= 10_000,
                "MaximumRetryAttempts must be -1-10000, got " + maximumRetryAttempts);
        check(maximumRecordAgeInSeconds == -1 || maximumRecordAgeInSeconds >= 60 && maximumRecordAgeInSeconds <= 604_800,
                "MaximumRecordAgeInSeconds must be -1 or 60-604800, got " + maximumRecordAgeInSeconds);
        check(parallelizationFactor == 1, "ParallelizationFactor " + parallelizationFactor
                + " is not supported by the local runtime: it reads each shard with one batch at a time (1)");
        check(!pollInterval.isNegative() && !pollInterval.isZero(), "poll interval must be positive");
        check(!retryDelay.isNegative(), "retry delay must not be negative");
        check(!discoveryInterval.isNegative() && !discoveryInterval.isZero(), "discovery interval must be positive");
        tableAllowList = Set.copyOf(tableAllowList);
    }

    /** Settings with the defaults the deployed mapping uses ({@link StreamWiring}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder()
                .batchSize(batchSize)
                .maximumBatchingWindowInSeconds(maximumBatchingWindowInSeconds)
                .bisectBatchOnFunctionError(bisectBatchOnFunctionError)
                .maximumRetryAttempts(maximumRetryAttempts)
                .maximumRecordAgeInSeconds(maximumRecordAgeInSeconds)
                .parallelizationFactor(parallelizationFactor)
                .pollInterval(pollInterval)
                .retryDelay(retryDelay)
                .discoveryInterval(discoveryInterval)
                .tableAllowList(tableAllowList);
    }

    /** Whether a table is watched at all by name. */
    boolean allows(String tableName) {
        return tableAllowList.isEmpty() || tableAllowList.contains(tableName);
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Builds {@link MappingSettings}. */
    public static final class Builder {
        private int batchSize = StreamWiring.DEFAULT_BATCH_SIZE;
        private int maximumBatchingWindowInSeconds;
        private boolean bisectBatchOnFunctionError;
        private int maximumRetryAttempts = StreamWiring.DEFAULT_MAX_RETRY_ATTEMPTS;
        private long maximumRecordAgeInSeconds = StreamWiring.DEFAULT_MAX_RECORD_AGE.toSeconds();
        private int parallelizationFactor = 1;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private Duration discoveryInterval = DEFAULT_DISCOVERY_INTERVAL;
        private Set<String> tableAllowList = Set.of();

        private Builder() {
        }

        public Builder batchSize(int value) {
            batchSize = value;
            return this;
        }

        public Builder maximumBatchingWindowInSeconds(int value) {
            maximumBatchingWindowInSeconds = value;
            return this;
        }

        public Builder bisectBatchOnFunctionError(boolean value) {
            bisectBatchOnFunctionError = value;
            return this;
        }

        public Builder maximumRetryAttempts(int value) {
            maximumRetryAttempts = value;
            return this;
        }

        public Builder maximumRecordAgeInSeconds(long value) {
            maximumRecordAgeInSeconds = value;
            return this;
        }

        public Builder parallelizationFactor(int value) {
            parallelizationFactor = value;
            return this;
        }

        public Builder pollInterval(Duration value) {
            pollInterval = value;
            return this;
        }

        public Builder retryDelay(Duration value) {
            retryDelay = value;
            return this;
        }

        public Builder discoveryInterval(Duration value) {
            discoveryInterval = value;
            return this;
        }

        public Builder tableAllowList(Set<String> value) {
            tableAllowList = value;
            return this;
        }

        public MappingSettings build() {
            return new MappingSettings(batchSize, maximumBatchingWindowInSeconds, bisectBatchOnFunctionError,
                    maximumRetryAttempts, maximumRecordAgeInSeconds, parallelizationFactor, pollInterval, retryDelay,
                    discoveryInterval, tableAllowList);
        }
    }
}
