package dev.punctual.functions;

import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A function's configuration: the one place the environment is read (the variables named in
 * {@link StreamWiring}, {@link ExpiryEvents} and {@link BackfillWorkflow}, and what Lambda itself sets).
 * Anything missing or malformed fails at start-up with a message naming the variable, rather than on the
 * first record.
 */
public final class ExpirySettings {

    /** Set by Lambda in every function's environment: only there do metrics go out as EMF log lines. */
    private static final String LAMBDA_FUNCTION_NAME = "AWS_LAMBDA_FUNCTION_NAME";
    /** Credentials of the environment: with one, a client signs with it even against an endpoint override. */
    private static final String AWS_ACCESS_KEY_ID = "AWS_ACCESS_KEY_ID";

    private static final Pattern STATE_MACHINE_ARN =
            Pattern.compile("arn:([a-z0-9-]+):states:([a-z0-9-]+):([0-9]*):stateMachine:([^:\\s]{1,80})");

    private final String stateMachineArn;
    private final String partition;
    private final String region;
    private final String account;
    private final String stateMachineName;
    private final String ttlAttribute;
    private final URI stepFunctionsEndpoint;
    private final int maxConcurrency;
    private final boolean cancelStale;
    private final ExpiryMode mode;
    private final String scheduleTable;
    private final URI dynamoDbEndpoint;
    private final String eventBus;
    private final boolean includeOldImage;
    private final URI eventsEndpoint;
    private final boolean inLambda;
    private final boolean accessKeyInEnvironment;
    private final String backfillProgressTable;
    private final String backfillTable;

    /**
     * Which function reads the settings: each needs a different part of the environment. The schedule
     * table is not among the differences: whoever uses it asks for it ({@link #scheduleTable()}).
     */
    private enum Reader {
        /** The TTL attribute is required. */
        STREAM_HANDLER(true, StreamWiring.DEFAULT_MAX_CONCURRENCY),
        /** The TTL attribute comes with each bucket. */
        BUCKET_FUNCTION(false, StreamWiring.DEFAULT_BUCKET_CONCURRENCY),
        /** The TTL attribute is a default each run may override; the progress table is required. */
        BACKFILL_FUNCTION(false, StreamWiring.DEFAULT_MAX_CONCURRENCY);

        final boolean ttlAttributeRequired;
        final int defaultConcurrency;

        Reader(boolean ttlAttributeRequired, int defaultConcurrency) {
            this.ttlAttributeRequired = ttlAttributeRequired;
            this.defaultConcurrency = defaultConcurrency;
        }
    }

    private ExpirySettings(Map<String, String> environment, Reader reader) {
        boolean ttlAttributeRequired = reader.ttlAttributeRequired;
        String arn = required(environment, StreamWiring.ENV_STATE_MACHINE_ARN);
        Matcher matcher = STATE_MACHINE_ARN.matcher(arn);
        if (!matcher.matches()) {
            throw invalid(StreamWiring.ENV_STATE_MACHINE_ARN, arn,
                    "a state machine ARN such as arn:aws:states:us-east-1:123456789012:stateMachine:expire-item");
        }
        this.stateMachineArn = arn;
        this.partition = matcher.group(1);
        this.region = matcher.group(2);
        this.account = matcher.group(3);
        this.stateMachineName = matcher.group(4);
        if (ttlAttributeRequired || environment.get(StreamWiring.ENV_TTL_ATTRIBUTE) != null) {
            String ttl = required(environment, StreamWiring.ENV_TTL_ATTRIBUTE);
            try {
                this.ttlAttribute = StreamWiring.requireSafeAttributeName(ttl);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(StreamWiring.ENV_TTL_ATTRIBUTE + ": " + e.getMessage(), e);
            }
        } else {
            this.ttlAttribute = null;
        }
        this.stepFunctionsEndpoint = endpoint(StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT,
                environment.get(StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT));
        this.dynamoDbEndpoint = endpoint(StreamWiring.ENV_DYNAMODB_ENDPOINT, environment.get(StreamWiring.ENV_DYNAMODB_ENDPOINT));
        this.mode = mode(environment.get(StreamWiring.ENV_MODE));
        this.scheduleTable = optional(environment, StreamWiring.ENV_SCHEDULE_TABLE);
        this.maxConcurrency = maxConcurrency(environment.get(StreamWiring.ENV_MAX_CONCURRENCY), reader.defaultConcurrency);
        // A mode that cannot stop stale executions ignores the flag rather than failing on it.
        this.cancelStale = flag(StreamWiring.ENV_CANCEL_STALE, environment.get(StreamWiring.ENV_CANCEL_STALE), true)
                && mode.stopsStaleExecutions();
        this.eventBus = optional(environment, ExpiryEvents.ENV_EVENT_BUS);
        this.includeOldImage = flag(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, environment.get(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE), false);
        if (includeOldImage && eventBus == null) {
            throw new IllegalArgumentException("Environment variable " + ExpiryEvents.ENV_INCLUDE_OLD_IMAGE
                    + " is true but " + ExpiryEvents.ENV_EVENT_BUS + " is not set; set the bus to publish expiry events");
        }
        this.eventsEndpoint = endpoint(ExpiryEvents.ENV_EVENTS_ENDPOINT, environment.get(ExpiryEvents.ENV_EVENTS_ENDPOINT));
        this.inLambda = environment.containsKey(LAMBDA_FUNCTION_NAME);
        this.accessKeyInEnvironment = environment.containsKey(AWS_ACCESS_KEY_ID);
        this.backfillProgressTable = optional(environment, BackfillWorkflow.ENV_PROGRESS_TABLE);
        this.backfillTable = optional(environment, BackfillWorkflow.ENV_TABLE);
    }

    /**
     * Reads the settings from an environment (normally {@code System.getenv()}).
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public static ExpirySettings fromEnvironment(Map<String, String> environment) {
        return new ExpirySettings(environment, Reader.STREAM_HANDLER);
    }

    /**
     * Reads the bucket function's settings: the state machine is {@code expire-bucket}, the
     * schedule table is required, and the TTL attribute comes with each bucket, not from here.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public static ExpirySettings forBucketFunction(Map<String, String> environment) {
        return new ExpirySettings(environment, Reader.BUCKET_FUNCTION);
    }

    /**
     * Reads the backfill function's settings: the state machine is the one the mode schedules with
     * ({@code expire-item}, or {@code expire-bucket} when windowed), the TTL attribute is a default each
     * run may override, and the function asks for {@link #backfillProgressTable()} (and, windowed, the
     * schedule table) while it is built.
     *
     * @throws IllegalArgumentException naming the variable that is missing or malformed
     */
    public static ExpirySettings forBackfillFunction(Map<String, String> environment) {
        return new ExpirySettings(environment, Reader.BACKFILL_FUNCTION);
    }

    public String stateMachineArn() {
        return stateMachineArn;
    }

    /** The region the state machine lives in, from its ARN. */
    public String region() {
        return region;
    }

    public String ttlAttribute() {
        return ttlAttribute;
    }

    /** The Step Functions endpoint to use instead of AWS's (the local runtime), if set. */
    public Optional<URI> stepFunctionsEndpoint() {
        return Optional.ofNullable(stepFunctionsEndpoint);
    }

    public int maxConcurrency() {
        return maxConcurrency;
    }

    /** Whether to stop executions made stale by a TTL change or a delete; never in a mode that cannot. */
    public boolean cancelStale() {
        return cancelStale;
    }

    /** Per-item or windowed. */
    public ExpiryMode mode() {
        return mode;
    }

    /**
     * The schedule index table, for the modes and functions that use one; they ask for it while they
     * are built, so a function missing it fails at start-up.
     *
     * @throws IllegalArgumentException naming the variable when it is not set
     */
    public String scheduleTable() {
        if (scheduleTable == null) {
            throw new IllegalArgumentException("Environment variable " + StreamWiring.ENV_SCHEDULE_TABLE
                    + " is required but not set (" + mode.label() + " mode indexes items in the schedule table)");
        }
        return scheduleTable;
    }

    /**
     * The backfill's progress table ({@link BackfillWorkflow#ENV_PROGRESS_TABLE}), which the backfill
     * function asks for while it is built, so a function missing it fails at start-up.
     *
     * @throws IllegalArgumentException naming the variable when it is not set
     */
    public String backfillProgressTable() {
        if (backfillProgressTable == null) {
            throw new IllegalArgumentException("Environment variable " + BackfillWorkflow.ENV_PROGRESS_TABLE
                    + " is required but not set (the backfill keeps each Scan segment's position there)");
        }
        return backfillProgressTable;
    }

    /** The one table the backfill function may backfill ({@link BackfillWorkflow#ENV_TABLE}); empty: any it is given. */
    public Optional<String> backfillTable() {
        return Optional.ofNullable(backfillTable);
    }

    /** The DynamoDB endpoint to use instead of AWS's (the local runtime over HTTP), if set. */
    public Optional<URI> dynamoDbEndpoint() {
        return Optional.ofNullable(dynamoDbEndpoint);
    }

    /** The EventBridge bus (name or ARN) expiry events go to; empty when events are off. */
    public Optional<String> eventBus() {
        return Optional.ofNullable(eventBus);
    }

    /** Whether each expiry event carries the item's old image. */
    public boolean includeOldImage() {
        return includeOldImage;
    }

    /** The EventBridge endpoint to use instead of AWS's (the local runtime), if set. */
    public Optional<URI> eventsEndpoint() {
        return Optional.ofNullable(eventsEndpoint);
    }

    /** Whether the function runs in Lambda (which sets {@code AWS_LAMBDA_FUNCTION_NAME}). */
    public boolean inLambda() {
        return inLambda;
    }

    /**
     * Whether the environment holds credentials ({@code AWS_ACCESS_KEY_ID}); without them, a client
     * pointed at an endpoint override signs as the local runtime expects.
     */
    public boolean accessKeyInEnvironment() {
        return accessKeyInEnvironment;
    }

    /** The ARN of this state machine's execution named {@code executionName}. */
    public String executionArn(String executionName) {
        return Arns.execution(partition, region, account, stateMachineName, executionName);
    }

    private static String optional(Map<String, String> environment, String name) {
        String value = environment.get(name);
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static String required(Map<String, String> environment, String name) {
        String value = environment.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("Environment variable " + name + " is required but not set");
        }
        return value.strip();
    }

    private static URI endpoint(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            URI uri = new URI(value.strip());
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw invalid(name, value, "an http(s) URL such as http://127.0.0.1:8083");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw invalid(name, value, "an http(s) URL such as http://127.0.0.1:8083");
        }
    }

    private static ExpiryMode mode(String value) {
        if (value == null || value.isBlank()) {
            return ExpiryMode.PER_ITEM;
        }
        try {
            return ExpiryMode.fromLabel(value);
        } catch (IllegalArgumentException e) {
            throw invalid(StreamWiring.ENV_MODE, value, ExpiryMode.choices());
        }
    }

    private static int maxConcurrency(String value, int defaultValue) {
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        String expected = "a whole number from 1 to " + StreamWiring.MAX_MAX_CONCURRENCY;
        try {
            int parsed = Integer.parseInt(value.strip());
            if (parsed < 1 || parsed > StreamWiring.MAX_MAX_CONCURRENCY) {
                throw invalid(StreamWiring.ENV_MAX_CONCURRENCY, value, expected);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw invalid(StreamWiring.ENV_MAX_CONCURRENCY, value, expected);
        }
    }

    private static boolean flag(String name, String value, boolean defaultValue) {
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(name, value, "true or false");
        };
    }

    private static IllegalArgumentException invalid(String name, String value, String expected) {
        return new IllegalArgumentException("Environment variable " + name + " is '" + value + "'; expected " + expected);
    }
}
