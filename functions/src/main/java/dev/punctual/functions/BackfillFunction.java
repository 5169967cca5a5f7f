package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.punctual.backfill.BackfillInputException;
import dev.punctual.backfill.BackfillRequest;
import dev.punctual.backfill.BackfillRun;
import dev.punctual.backfill.BackfillWorker;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.Sleeper;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.PunctualVersion;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The Lambda function the {@code backfill} state machine invokes for each of its steps
 * ({@link BackfillWorkflow#ACTION}): prepare a run, scan and schedule one page of one segment, finish
 * the run. Thin: it reads the payload, hands domain values to {@link BackfillWorker}, and writes the
 * step's result back as the payload the workflow passes on.
 *
 * <p>Configured like the stream handler ({@link dev.punctual.statemachine.StreamWiring}: the mode, the
 * state machine the mode schedules with, the schedule table when windowed, optionally a default TTL
 * attribute), plus {@link BackfillWorkflow#ENV_PROGRESS_TABLE} and, in AWS, {@link BackfillWorkflow#ENV_TABLE}.
 */
public final class BackfillFunction implements RequestHandler<Map<String, Object>, Map<String, Object>>, AutoCloseable {

    static {
        // Before any logger is configured: log4j2.xml puts it on every line as punctualVersion.
        System.setProperty(ExpiryStreamHandler.VERSION_PROPERTY, PunctualVersion.current());
    }

    private final BackfillWorker worker;
    private final Collaborators collaborators;

    /** The Lambda runtime's constructor: configuration and clients from {@code System.getenv()}. */
    public BackfillFunction() {
        this(Collaborators.builder(System.getenv()).build());
    }

    /**
     * A function working with {@code collaborators}: the local runtime's in-process routes, or a test's.
     * Closing the function closes what {@link Collaborators.Builder#build()} built for it.
     */
    public BackfillFunction(Collaborators collaborators) {
        this.collaborators = collaborators;
        ExpirySettings settings = collaborators.settings();
        this.worker = new BackfillWorker(new DynamoDbTableReader(collaborators.dynamoDb()),
                new DynamoDbBackfillProgress(collaborators.dynamoDb(), collaborators.progressTable()),
                new HandlerProcessorScheduling(settings, collaborators.executions(), collaborators.dynamoDb(),
                        collaborators.clock()),
                collaborators.clock(), collaborators.sleeper(), collaborators.backoff(), new BackfillLog(),
                collaborators.onlyTable(), Optional.ofNullable(settings.ttlAttribute()));
    }

    /**
     * What the function works with: its settings, the executions of the state machine its mode schedules
     * with, the DynamoDB client for the table, the progress table and windowed mode's index, its clock,
     * what its pacing waits on, and its backoff on throttling.
     */
    public static final class Collaborators {

        private final ExpirySettings settings;
        private final String progressTable;
        private final Optional<String> onlyTable;
        private final Executions executions;
        private final DynamoDbClient dynamoDb;
        private final Clock clock;
        private final Sleeper sleeper;
        private final ThrottleBackoff backoff;
        private final OwnedClients owned;

        private Collaborators(Builder builder, OwnedClients owned) {
            this.settings = builder.settings;
            this.progressTable = builder.progressTable;
            this.onlyTable = builder.onlyTable;
            this.executions = owned.executions(builder.executions);
            this.dynamoDb = owned.dynamoDb(builder.dynamoDb);
            this.clock = builder.clock;
            this.sleeper = builder.sleeper;
            this.backoff = builder.backoff != null ? builder.backoff : ExpiryStreamHandler.realBackoff();
            this.owned = owned;
        }

        public ExpirySettings settings() {
            return settings;
        }

        /** The progress table ({@link BackfillWorkflow#ENV_PROGRESS_TABLE}). */
        public String progressTable() {
            return progressTable;
        }

        /** The one table this function may backfill ({@link BackfillWorkflow#ENV_TABLE}), if the environment names one. */
        public Optional<String> onlyTable() {
            return onlyTable;
        }

        public Executions executions() {
            return executions;
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

        public ThrottleBackoff backoff() {
            return backoff;
        }

        /** Closes what the builder built; what a caller passed in stays the caller's. */
        void close() throws Exception {
            owned.close();
        }

        /**
         * Collaborators configured from {@code environment}; every part not set on the builder is built
         * from it as in Lambda.
         *
         * @throws IllegalArgumentException naming the variable that is missing or malformed
         */
        public static Builder builder(Map<String, String> environment) {
            return new Builder(environment);
        }

        /** Builds the parts a caller did not set, from the environment. */
        public static final class Builder extends CollaboratorsBuilder<Builder> {

            private final String progressTable;
            private final Optional<String> onlyTable;
            private Sleeper sleeper = Sleeper.SYSTEM;
            private ThrottleBackoff backoff;

            private Builder(Map<String, String> environment) {
                super(environment, ExpirySettings::forBackfillFunction);
                String progress = environment.get(BackfillWorkflow.ENV_PROGRESS_TABLE);
                if (progress == null || progress.isBlank()) {
                    throw new IllegalArgumentException("Environment variable " + BackfillWorkflow.ENV_PROGRESS_TABLE
                            + " is required but not set");
                }
                this.progressTable = progress.strip();
                String only = environment.get(BackfillWorkflow.ENV_TABLE);
                this.onlyTable = only == null || only.isBlank() ? Optional.empty() : Optional.of(only.strip());
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

            /** Default: backoff on the system clock with real pauses. */
            public Builder backoff(ThrottleBackoff value) {
                this.backoff = value;
                return this;
            }

            /** The collaborators; each call builds its own clients for the parts not set. */
            public Collaborators build() {
                return new Collaborators(this, ownedClients());
            }
        }
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> payload, Context context) {
        Duration budget = Duration.ofMillis(context.getRemainingTimeInMillis()).minus(ExpiryStreamHandler.SAFETY_MARGIN);
        return PowertoolsLogging.withLogging(context, () -> handle(payload, budget.isNegative() ? Duration.ZERO : budget));
    }

    private Map<String, Object> handle(Map<String, Object> payload, Duration backoffBudget) {
        Object action = payload == null ? null : payload.get(BackfillWorkflow.ACTION);
        if (BackfillWorkflow.ACTION_PREPARE.equals(action)) {
            return prepare(payload);
        }
        if (BackfillWorkflow.ACTION_SCAN_PAGE.equals(action)) {
            return scanPage(payload, backoffBudget);
        }
        if (BackfillWorkflow.ACTION_FINISH.equals(action)) {
            return finish(payload);
        }
        throw new BackfillInputException("Unknown backfill action " + action + "; expected "
                + List.of(BackfillWorkflow.ACTION_PREPARE, BackfillWorkflow.ACTION_SCAN_PAGE, BackfillWorkflow.ACTION_FINISH));
    }

    private Map<String, Object> prepare(Map<String, Object> payload) {
        BackfillRequest request = BackfillRequest.fromInput(map(payload.get(BackfillWorkflow.INPUT), BackfillWorkflow.INPUT));
        BackfillWorker.Prepared prepared = worker.prepare(request, text(payload, BackfillWorkflow.EXECUTION));
        Map<String, Object> output = new LinkedHashMap<>();
        output.put(BackfillWorkflow.TABLE, prepared.run().table());
        output.put(BackfillWorkflow.RUN, runPayload(prepared.run()));
        output.put(BackfillWorkflow.SEGMENT_LIST, prepared.segmentsLeft());
        output.put(BackfillWorkflow.PAGES_PER_SEGMENT, prepared.pagesPerSegment());
        output.put(BackfillWorkflow.MODE, collaborators.settings().mode().label());
        return output;
    }

    private Map<String, Object> scanPage(Map<String, Object> payload, Duration backoffBudget) {
        BackfillRun run = run(payload);
        int segment = (int) number(payload, BackfillWorkflow.SEGMENT);
        long pagesLeft = number(payload, BackfillWorkflow.PAGES_LEFT) - 1;
        BackfillWorker.PageResult page = worker.scanPage(run, segment, backoffBudget);
        Map<String, Object> output = new LinkedHashMap<>(payload);
        output.put(BackfillWorkflow.PAGES_LEFT, pagesLeft);
        output.put(BackfillWorkflow.MORE, !page.done() && pagesLeft > 0);
        output.put(BackfillWorkflow.PAGE, BackfillLog.counts(page.page()));
        output.put(BackfillWorkflow.SEGMENT_TOTALS, BackfillLog.counts(page.segmentAfter().counts()));
        return output;
    }

    private Map<String, Object> finish(Map<String, Object> payload) {
        BackfillRun run = run(payload);
        BackfillWorker.Finished finished = worker.finish(run);
        Map<String, Object> output = new LinkedHashMap<>();
        output.put(BackfillWorkflow.COMPLETE, finished.complete());
        if (finished.complete()) {
            output.put(BackfillWorkflow.OUTCOME, BackfillWorkflow.OUTCOME_BACKFILLED);
        } else {
            output.put(BackfillWorkflow.SUCCESSOR, BackfillWorker.successorName(run, text(payload, BackfillWorkflow.EXECUTION)));
            output.put(BackfillWorkflow.SUCCESSOR_INPUT,
                    BackfillRequest.successorInput(map(payload.get(BackfillWorkflow.INPUT), BackfillWorkflow.INPUT)));
        }
        output.put(BackfillWorkflow.TABLE, run.table());
        output.put(BackfillWorkflow.RUN, run.id());
        output.put(BackfillWorkflow.MODE, collaborators.settings().mode().label());
        output.put(BackfillWorkflow.SEGMENTS, run.segments());
        output.put("segmentsDone", finished.segmentsDone());
        output.putAll(BackfillLog.counts(finished.totals()));
        return output;
    }

    /** A run as the workflow carries it between steps. */
    private static Map<String, Object> runPayload(BackfillRun run) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("id", run.id());
        payload.put(BackfillWorkflow.SEGMENTS, run.segments());
        payload.put(BackfillWorkflow.TTL_ATTRIBUTE, run.ttlAttribute());
        payload.put("keyAttributes", run.keyAttributes());
        payload.put(BackfillWorkflow.PAGE_SIZE, run.pageSize());
        payload.put(BackfillWorkflow.STARTS_PER_SECOND, run.startsPerSecond());
        payload.put(BackfillWorkflow.MODE, run.mode());
        payload.put("startedAt", run.startedAt().toString());
        return payload;
    }

    private static BackfillRun run(Map<String, Object> payload) {
        Map<String, Object> run = map(payload.get(BackfillWorkflow.RUN), BackfillWorkflow.RUN);
        Object keys = run.get("keyAttributes");
        if (!(keys instanceof List<?> list) || !list.stream().allMatch(String.class::isInstance)) {
            throw new BackfillInputException("run.keyAttributes must be a list of attribute names, got " + keys);
        }
        Object rate = run.get(BackfillWorkflow.STARTS_PER_SECOND);
        if (!(rate instanceof Number startsPerSecond)) {
            throw new BackfillInputException("run." + BackfillWorkflow.STARTS_PER_SECOND + " must be a number, got " + rate);
        }
        return new BackfillRun(text(run, "id"), text(payload, BackfillWorkflow.TABLE), (int) number(run, BackfillWorkflow.SEGMENTS),
                text(run, BackfillWorkflow.TTL_ATTRIBUTE), list.stream().map(String.class::cast).toList(),
                (int) number(run, BackfillWorkflow.PAGE_SIZE), startsPerSecond.doubleValue(), text(run, BackfillWorkflow.MODE),
                Instant.parse(text(run, "startedAt")), null);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, String field) {
        if (value instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        throw new BackfillInputException("\"" + field + "\" must be a JSON object, got " + value);
    }

    private static String text(Map<String, Object> payload, String field) {
        if (payload.get(field) instanceof String text) {
            return text;
        }
        throw new BackfillInputException("\"" + field + "\" must be a string, got " + payload.get(field));
    }

    private static long number(Map<String, Object> payload, String field) {
        if (payload.get(field) instanceof Number number) {
            return number.longValue();
        }
        throw new BackfillInputException("\"" + field + "\" must be a number, got " + payload.get(field));
    }

    /** Releases the clients this function built (the local runtime's shutdown). */
    @Override
    public void close() throws Exception {
        collaborators.close();
    }
}
