package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.punctual.backfill.BackfillInputException;
import dev.punctual.backfill.BackfillRequest;
import dev.punctual.backfill.BackfillRun;
import dev.punctual.backfill.BackfillWorker;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.PunctualVersion;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.sfn.model.ExecutionAlreadyExistsException;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The Lambda function the {@code backfill} state machine invokes for each of its steps
 * ({@link BackfillWorkflow#ACTION}): prepare a run, scan and schedule one page of one segment, finish
 * the run. Thin: it reads the payload, hands domain values to {@link BackfillWorker}, and writes the
 * step's result back as the payload the workflow passes on.
 *
 * <p>It also serves CloudFormation's custom resource that starts one run when a stack is first deployed
 * ({@link BackfillOnCreate}).
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
    private final BackfillOnCreate onCreate;
    private final FunctionParts parts;

    /** The Lambda runtime's constructor: configuration and clients from {@code System.getenv()}. */
    public BackfillFunction() {
        this(FunctionParts.builder(ExpirySettings.forBackfillFunction(System.getenv())).build());
    }

    /**
     * A function working with {@code parts} (built with {@link ExpirySettings#forBackfillFunction}): the
     * local runtime's in-process routes, or a test's. Its DynamoDB client reads the table, keeps the
     * progress and, windowed, writes the index; its executions are those of the state machine its mode
     * schedules with. Closing the function closes the parts (what they built, not what was given to them).
     *
     * @throws IllegalArgumentException naming an environment variable the function or its mode needs and is not set
     */
    public BackfillFunction(FunctionParts parts) {
        this.parts = parts;
        ExpirySettings settings = parts.settings();
        this.worker = new BackfillWorker(new DynamoDbTableReader(parts.dynamoDb()),
                new DynamoDbBackfillProgress(parts.dynamoDb(), settings.backfillProgressTable()),
                new ChangeProcessorScheduling(parts), parts.clock(), parts.sleeper(), parts.backoff(), new BackfillLog(),
                settings.backfillTable(), Optional.ofNullable(settings.ttlAttribute()));
        this.onCreate = new BackfillOnCreate(this::startExecution, BackfillOnCreate::answerOverHttp);
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> payload, Context context) {
        if (BackfillOnCreate.isRequest(payload)) {
            return PowertoolsLogging.withLogging(context, () -> onCreate.handle(payload));
        }
        Duration budget = Duration.ofMillis(context.getRemainingTimeInMillis()).minus(ExpiryStreamHandler.SAFETY_MARGIN);
        return PowertoolsLogging.withLogging(context, () -> handle(payload, budget.isNegative() ? Duration.ZERO : budget));
    }

    private Map<String, Object> handle(Map<String, Object> payload, Duration backoffBudget) {
        try {
            Contract.BACKFILL_STEP.checkPayload(payload);
        } catch (Contract.UnsupportedContractException e) {
            // Not retried: the same payload would fail the same way.
            throw new BackfillInputException(e.getMessage());
        }
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
        output.put(BackfillWorkflow.MODE, parts.settings().mode().label());
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
        output.put(BackfillWorkflow.MODE, parts.settings().mode().label());
        output.put(BackfillWorkflow.SEGMENTS, run.segments());
        output.put("segmentsDone", finished.segmentsDone());
        output.putAll(BackfillLog.counts(finished.totals()));
        return output;
    }

    /** Starts an execution of {@code stateMachineArn} (the backfill's own, on create); its ARN, the same one when started again. */
    private String startExecution(String stateMachineArn, String name, String inputJson) {
        try {
            return parts.stepFunctions().startExecution(r -> r.stateMachineArn(stateMachineArn).name(name).input(inputJson))
                    .executionArn();
        } catch (ExecutionAlreadyExistsException e) {
            // The name is the request's: a request delivered again, whose run was started the first time.
            return Arns.execution(stateMachineArn, name);
        }
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
        parts.close();
    }
}
