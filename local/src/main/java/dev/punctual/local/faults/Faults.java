package dev.punctual.local.faults;

import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

/**
 * One kind of fault the local runtime injects ({@code --dynamodb-fault}, {@code --lambda-fault}):
 * either the next {@code n} calls fail, or each call fails with probability {@code p} drawn from a
 * seeded generator (deterministic for a given call order). Thread-safe; reconfigurable at any time.
 * What it injects is counted per call site in a {@link FaultCounts}.
 */
public final class Faults {

    /**
     * Error codes DynamoDB itself returns for throttling and server trouble, which callers retry, and
     * {@code AccessDeniedException} (the role may not make the call), which they do not.
     */
    public static final Set<String> DYNAMODB_ERRORS = Set.of("ProvisionedThroughputExceededException",
            "ThrottlingException", "RequestLimitExceeded", "InternalServerError", "ServiceUnavailable",
            "AccessDeniedException");

    /**
     * Errors Step Functions reports for a Lambda invocation: the Lambda service's own (a 500 or a
     * client error, nothing ran), throttling (nothing ran), and {@code Lambda.Unknown}, which is how
     * Step Functions reports a function that timed out: it ran, its result is lost, and the error comes
     * once the function's timeout has passed.
     */
    public static final Set<String> LAMBDA_ERRORS = Set.of("Lambda.ServiceException", "Lambda.AWSLambdaException",
            "Lambda.SdkClientException", "Lambda.TooManyRequestsException", "Lambda.Unknown");

    private final String flag;
    private final Set<String> known;
    private final FaultCounts counts;
    private String errorCode;
    private String onlySite;
    private int remaining;
    private double probability;
    private Random random;
    private int injected;

    private Faults(String flag, Set<String> known, FaultCounts counts) {
        this.flag = flag;
        this.known = known;
        this.counts = Objects.requireNonNull(counts, "counts");
    }

    /** DynamoDB faults, none yet, counted in {@code counts}. */
    public static Faults dynamoDb(FaultCounts counts) {
        return new Faults("--dynamodb-fault", DYNAMODB_ERRORS, counts);
    }

    /** Lambda invocation faults, none yet, counted in {@code counts}. */
    public static Faults lambda(FaultCounts counts) {
        return new Faults("--lambda-fault", LAMBDA_ERRORS, counts);
    }

    /** The next {@code calls} calls fail with {@code errorCode}. */
    public synchronized Faults failNext(int calls, String errorCode) {
        return failNextAt(null, calls, errorCode);
    }

    /**
     * The next {@code calls} calls at {@code site} (e.g. {@code bucket-function.DeleteItem}) fail with
     * {@code errorCode}; calls elsewhere go through. {@code null} for every site.
     */
    public synchronized Faults failNextAt(String site, int calls, String errorCode) {
        requireKnown(errorCode);
        this.errorCode = errorCode;
        this.onlySite = site;
        this.remaining = calls;
        this.probability = 0;
        this.random = null;
        return this;
    }

    /** Each call fails with {@code errorCode} with probability {@code fraction}, drawn from {@code seed}. */
    public synchronized Faults failFraction(double fraction, String errorCode, long seed) {
        requireKnown(errorCode);
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("The fault fraction must be between 0 and 1, got " + fraction);
        }
        this.errorCode = errorCode;
        this.onlySite = null;
        this.remaining = 0;
        this.probability = fraction;
        this.random = new Random(seed);
        return this;
    }

    /**
     * Configures from a flag's value, {@code ERROR=FRACTION} (e.g. {@code ThrottlingException=0.05}).
     *
     * @throws IllegalArgumentException saying what is wrong with the value and what the flag expects
     */
    public Faults parse(String value, long seed) {
        String[] parts = value.split("=", 2);
        double fraction;
        try {
            fraction = Double.parseDouble(parts.length == 2 ? parts[1] : "");
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " expects ERROR=FRACTION, e.g. " + example() + "=0.05; got '" + value + "'", e);
        }
        return failFraction(fraction, parts[0], seed);
    }

    /** Stops injecting faults. */
    public synchronized Faults clear() {
        this.errorCode = null;
        this.onlySite = null;
        this.remaining = 0;
        this.probability = 0;
        this.random = null;
        return this;
    }

    /** How many faults this kind injected so far. */
    public synchronized int injected() {
        return injected;
    }

    /** The error the call at {@code site} must fail with, if any; consumes one fault and counts it. */
    Optional<String> next(String site) {
        String error;
        synchronized (this) {
            if (errorCode == null || onlySite != null && !onlySite.equals(site)) {
                return Optional.empty();
            }
            boolean fail = remaining > 0 ? remaining-- > 0 : random != null && random.nextDouble() < probability;
            if (!fail) {
                return Optional.empty();
            }
            injected++;
            error = errorCode;
        }
        counts.injected(site, error);
        return Optional.of(error);
    }

    private String example() {
        return known.stream().sorted().findFirst().orElseThrow();
    }

    private void requireKnown(String errorCode) {
        if (!known.contains(errorCode)) {
            throw new IllegalArgumentException("Unknown fault '" + errorCode + "' for " + flag + "; use one of "
                    + known.stream().sorted().toList());
        }
    }
}
