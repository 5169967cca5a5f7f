package dev.punctual.local.stepfunctions.tasks;

import java.util.Optional;
import java.util.Random;
import java.util.Set;

/**
 * Faults the local runtime injects into DynamoDB task calls, to show that a definition's Retry
 * policy absorbs throttling and server errors and that beyond it the execution fails visibly. Either
 * the next {@code n} calls fail, or each call fails with probability {@code p} drawn from a seeded
 * generator (deterministic for a given call order). Thread-safe; reconfigurable at any time.
 */
public final class DynamoDbFaults {

    /**
     * Error codes DynamoDB itself returns: for throttling and server trouble, which the ASL retries, and
     * {@code AccessDeniedException} (the role may not delete), which it does not, so the execution fails at once.
     */
    public static final Set<String> KNOWN_ERROR_CODES = Set.of("ProvisionedThroughputExceededException",
            "ThrottlingException", "RequestLimitExceeded", "InternalServerError", "ServiceUnavailable",
            "AccessDeniedException");

    private String errorCode;
    private int remaining;
    private double probability;
    private Random random;
    private int injected;

    /** No faults. */
    public static DynamoDbFaults none() {
        return new DynamoDbFaults();
    }

    /** The next {@code calls} calls fail with {@code errorCode} (e.g. {@code ProvisionedThroughputExceededException}). */
    public synchronized DynamoDbFaults failNext(int calls, String errorCode) {
        requireKnown(errorCode);
        this.errorCode = errorCode;
        this.remaining = calls;
        this.probability = 0;
        this.random = null;
        return this;
    }

    /** Each call fails with {@code errorCode} with probability {@code fraction}, drawn from {@code seed}. */
    public synchronized DynamoDbFaults failFraction(double fraction, String errorCode, long seed) {
        requireKnown(errorCode);
        if (fraction < 0 || fraction > 1) {
            throw new IllegalArgumentException("The fault fraction must be between 0 and 1, got " + fraction);
        }
        this.errorCode = errorCode;
        this.remaining = 0;
        this.probability = fraction;
        this.random = new Random(seed);
        return this;
    }

    /** Stops injecting faults. */
    public synchronized DynamoDbFaults clear() {
        this.errorCode = null;
        this.remaining = 0;
        this.probability = 0;
        this.random = null;
        return this;
    }

    /** How many faults were injected so far. */
    public synchronized int injected() {
        return injected;
    }

    /** The error code the next call must fail with, if any; consumes one fault. */
    synchronized Optional<String> next() {
        if (errorCode == null) {
            return Optional.empty();
        }
        boolean fail = remaining > 0 ? remaining-- > 0 : random != null && random.nextDouble() < probability;
        if (!fail) {
            return Optional.empty();
        }
        injected++;
        return Optional.of(errorCode);
    }

    private static void requireKnown(String errorCode) {
        if (!KNOWN_ERROR_CODES.contains(errorCode)) {
            throw new IllegalArgumentException("Unknown DynamoDB fault '" + errorCode + "'; use one of " + KNOWN_ERROR_CODES);
        }
    }
}
