package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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

    private static final Set<String> FIELDS = Set.of("ErrorEquals", "IntervalSeconds", "MaxAttempts",
            "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment");

    /** Reads a state's {@code Retry} array. */
    static List<Retrier> readAll(DefinitionNode retry) {
        return retry.elements("Retry", Retrier::read);
    }

    private static Retrier read(DefinitionNode node, boolean last) {
        node.allowOnly(FIELDS);
        List<String> errors = errorEquals(node, last);
        Long interval = node.optionalPositiveInteger("IntervalSeconds");
        int maxAttempts = (int) node.nonNegativeInteger("MaxAttempts", DEFAULT_MAX_ATTEMPTS);
        double backoff = DEFAULT_BACKOFF_RATE;
        if (node.has("BackoffRate")) {
            JsonNode value = node.get("BackoffRate");
            if (!value.isNumber() || value.doubleValue() < 1.0) {
                throw node.error("BackoffRate", "'BackoffRate' must be a number of at least 1.0");
            }
            backoff = value.doubleValue();
        }
        Long maxDelay = node.optionalPositiveInteger("MaxDelaySeconds");
        boolean fullJitter = false;
        if (node.has("JitterStrategy")) {
            String jitter = node.get("JitterStrategy").asText();
            if (!jitter.equals("FULL") && !jitter.equals("NONE")) {
                throw node.error("JitterStrategy", "'JitterStrategy' must be FULL or NONE");
            }
            fullJitter = jitter.equals("FULL");
        }
        return new Retrier(errors, interval == null ? DEFAULT_INTERVAL_SECONDS : (int) (long) interval, maxAttempts,
                backoff, maxDelay == null ? 0 : (int) (long) maxDelay, fullJitter);
    }

    /**
     * The {@code ErrorEquals} of a Retrier or Catcher: a non-empty array of names, where
     * {@code States.ALL} may only stand alone in the {@code last} one.
     */
    static List<String> errorEquals(DefinitionNode node, boolean last) {
        JsonNode errors = node.get("ErrorEquals");
        if (errors == null || !errors.isArray() || errors.isEmpty()) {
            throw node.error("ErrorEquals", "'ErrorEquals' must be a non-empty array of error names");
        }
        List<String> names = new ArrayList<>();
        for (JsonNode error : errors) {
            if (!error.isTextual()) {
                throw node.error("ErrorEquals", "Error names must be strings");
            }
            names.add(error.textValue());
        }
        if (names.contains(AslError.ALL) && (names.size() > 1 || !last)) {
            throw node.error("ErrorEquals", "States.ALL must appear alone in 'ErrorEquals' and only in the"
                    + " last Retrier or Catcher");
        }
        return List.copyOf(names);
    }

    /** Whether this Retrier retries {@code error}. */
    boolean matches(AslError error) {
        return error.retryable() && errorEquals.stream().anyMatch(error::matchedBy);
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
