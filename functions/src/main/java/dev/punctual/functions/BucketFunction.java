package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.windowed.BucketInput;
import dev.punctual.windowed.BucketPhases;
import dev.punctual.windowed.BucketWorker;
import dev.punctual.windowed.RunnerState;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * The Lambda function a bucket's runner ({@code run-bucket.asl.json}) invokes for each of its steps:
 * the payload is the runner's state, the result the next step's state or the bucket's output. Thin: it
 * reads the payload and hands it to {@link BucketWorker#step}, logging one line per due second and one
 * per bucket (table, bucket, level, counts; never keys).
 * Its other inputs are EventBridge rules' deliveries: a bucket execution that ended unfinished, whose
 * successor generation it starts, and the schedule of the sweep that catches what those missed
 * ({@link BucketHealing}).
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
    private final BucketHealing healing;
    private final ThrottleBackoff backoff;
    private final FunctionParts parts;
    /** The worker's threads when this function made the worker; {@code null} when it was given one. */
    private final ExecutorService pool;

    /** The Lambda runtime's constructor: configuration and clients from {@code System.getenv()}. */
    public BucketFunction() {
        this(FunctionParts.builder(ExpirySettings.forBucketFunction(System.getenv())).build());
    }

    /**
     * A function working with {@code parts} (built with {@link ExpirySettings#forBucketFunction}): the
     * local runtime's in-process routes, or a test's. Closing the function closes the parts (what they
     * built, not what was given to them).
     *
     * @throws IllegalArgumentException naming {@link dev.punctual.statemachine.StreamWiring#ENV_SCHEDULE_TABLE} when it is not set
     */
    public BucketFunction(FunctionParts parts) {
        this(parts, BucketPhases.NONE);
    }

    /**
     * A function that tells {@code phases} when each one-second bucket passes a phase: the local
     * runtime's timeline of where a second's time goes.
     */
    public BucketFunction(FunctionParts parts, BucketPhases phases) {
        this(parts, Executors.newFixedThreadPool(parts.settings().maxConcurrency(), DaemonThreads.named("punctual-bucket")), phases);
    }

    private BucketFunction(FunctionParts parts, ExecutorService pool, BucketPhases phases) {
        this(parts, new BucketWorker(new DynamoDbScheduleIndex(parts.dynamoDb(), parts.settings().scheduleTable()),
                new DynamoDbItemDeleter(parts.dynamoDb()), parts.executions(), parts.clock(), parts.sleeper(), pool, phases), pool);
    }

    /**
     * A function whose runner steps {@code worker} takes, over whatever index and table it was given: a
     * test that runs {@code run-bucket.asl.json} on the local engine with this function behind its Task,
     * so the runner's loop is the ASL's own. The worker's threads stay the caller's.
     */
    public BucketFunction(FunctionParts parts, BucketWorker worker) {
        this(parts, worker, null);
    }

    private BucketFunction(FunctionParts parts, BucketWorker worker, ExecutorService ownPool) {
        this.parts = parts;
        this.pool = ownPool;
        this.worker = worker;
        this.healing = new BucketHealing(parts.executions(), parts.clock(), parts.settings().stateMachineArn());
        this.backoff = new ThrottleBackoff(parts.clock(), parts.sleeper(), ThreadLocalRandom.current());
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> payload, Context context) {
        // EventBridge rules' deliveries: a bucket execution ended unfinished (start its successor), or
        // the sweep's schedule (replace whatever such deliveries missed).
        Duration budget = Duration.ofMillis(context.getRemainingTimeInMillis()).minus(ExpiryStreamHandler.SAFETY_MARGIN);
        if (BucketHealing.isStatusChange(payload)) {
            return PowertoolsLogging.withLogging(context, () -> healing.heal(payload, backoff.within(budget)));
        }
        if (BucketHealing.isSweep(payload)) {
            return PowertoolsLogging.withLogging(context, () -> healing.sweep(parts.clock().instant(), backoff.within(budget)));
        }
        return PowertoolsLogging.withLogging(context, () -> handle(payload));
    }

    /**
     * One step of a bucket's runner: the payload is the runner's state (the bucket's input, plus where the
     * runner is after its first step); the answer is the state of the next step, or the bucket's output.
     * One log line for each due second worked, the last included, and one when the bucket is done
     * (never a key).
     */
    private Map<String, Object> handle(Map<String, Object> payload) {
        BucketInput input;
        RunnerState state;
        try {
            input = BucketInput.fromPayload(payload);
            state = RunnerState.fromPayload(payload.get(BucketWorkflow.RUNNER));
        } catch (IllegalArgumentException e) {
            LOG.error("bucket payload not readable: " + e.getMessage(), entry("outcome", "failed"));
            throw e;
        }
        BucketWorker.Step step = worker.step(input, state);
        if (state != null && state.phase() == RunnerState.Phase.DELETE) {
            // The last second too, whose step answers the bucket's result: its next is the part's end.
            LOG.info("bucket second worked",
                    entry("table", input.bucket().table()),
                    entry("bucket", input.executionName()),
                    entry("second", state.target()),
                    entry("items", (step.done() ? step.result().items() : step.next().counts().items()) - state.counts().items()),
                    entry("next", step.done() ? input.until() : step.next().target()));
        }
        if (!step.done()) {
            Map<String, Object> next = new LinkedHashMap<>(payload);
            next.put(BucketWorkflow.RUNNER, step.next().toPayload());
            return next;
        }
        BucketWorker.Result result = step.result();
        LOG.info("bucket worked",
                entry("table", input.bucket().table()),
                entry("bucket", input.executionName()),
                entry("bucketLevel", input.bucket().level().label()),
                entry("outcome", result.outcome()),
                entry("items", result.items()),
                entry("expired", result.expired()),
                entry("superseded", result.superseded()),
                entry("seconds", result.seconds()),
                entry("buckets", result.buckets()));
        return result.toOutput();
    }

    /** Releases the worker threads it made and the clients the parts built (the local runtime's shutdown). */
    @Override
    public void close() throws Exception {
        if (pool != null) {
            pool.shutdown();
        }
        parts.close();
    }
}
