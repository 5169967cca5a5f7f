package dev.punctual.local.stepfunctions.asl.states;

import dev.punctual.local.stepfunctions.asl.ErrorNames;
import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * One entry of a state's {@code Retry}.
 *
 * @param maxDelaySeconds {@code MaxDelaySeconds}, or 0 when absent
 */
public record Retrier(List<String> errorEquals, int intervalSeconds, int maxAttempts, double backoffRate,
        int maxDelaySeconds, boolean fullJitter) {

    public static final int DEFAULT_INTERVAL_SECONDS = 1;
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final double DEFAULT_BACKOFF_RATE = 2.0;

    boolean matches(String error) {
        return errorEquals.stream().anyMatch(e -> ErrorNames.matches(e, error));
    }

    /**
     * The delay before retry number {@code attempt + 1}: {@code IntervalSeconds * BackoffRate^attempt},
     * capped by {@code MaxDelaySeconds}, and with FULL jitter drawn uniformly from zero to that.
     */
    Duration delay(int attempt, RandomGenerator random) {
        double seconds = intervalSeconds * Math.pow(backoffRate, attempt);
        if (maxDelaySeconds > 0) {
            seconds = Math.min(seconds, maxDelaySeconds);
        }
        if (fullJitter) {
            seconds = random.nextDouble() * seconds;
        }
        return Duration.ofMillis(Math.round(seconds * 1000));
    }
}
