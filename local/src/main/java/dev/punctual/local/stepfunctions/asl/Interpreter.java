package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stepfunctions.asl.errors.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.Run;
import dev.punctual.local.stepfunctions.asl.run.RunObserver;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.asl.run.TransitionThrottle;
import dev.punctual.local.stepfunctions.asl.states.Environment;
import dev.punctual.local.stepfunctions.asl.states.GraphRun;
import dev.punctual.local.stepfunctions.asl.states.StateMachineGraph;
import dev.punctual.local.time.Timer;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;

/**
 * The Amazon States Language interpreter (JSONPath query language): parses definitions and runs them.
 * It is the seam between the language (states, paths, intrinsic functions, Retry/Catch) and the
 * executions backend (registry, durability, the Step Functions API), which sees only it, the
 * {@link ParsedDefinition}s it makes and the types of {@code asl.run}. Runs hold no thread while they
 * wait: Wait states, retry back-off and task time-outs are entries of the shared {@link Timer}, and Task
 * resources are called on {@code taskExecutor}.
 *
 * <p>After a restart, {@link #resume} continues a top-level Wait at its recorded instant; any other
 * checkpointed state, including a Map or Parallel state interrupted half-way, runs again from its
 * start with its recorded input (retry counts start again at zero).
 */
public final class Interpreter {

    private final Timer timer;
    private final List<TaskResource> resources;
    private final Executor taskExecutor;
    private final RandomGenerator random;
    private final String region;
    private final TransitionThrottle transitions;

    /**
     * An interpreter that reports resources whose ARN names no Region in {@link LocalAccount#REGION}.
     *
     * @param timer the timer every wait of every execution goes on
     * @param resources the Task resources definitions may use; others are refused at parse time
     * @param taskExecutor where resources are called; {@code Runnable::run} makes runs synchronous in tests
     */
    public Interpreter(Timer timer, List<TaskResource> resources, Executor taskExecutor) {
        this(timer, resources, taskExecutor, new Random(), LocalAccount.REGION);
    }

    /**
     * @param random draws retry jitter; seed it for reproducible back-off in tests
     * @param region the Region reported for resources whose ARN names none
     */
    public Interpreter(Timer timer, List<TaskResource> resources, Executor taskExecutor, RandomGenerator random,
            String region) {
        this(timer, resources, taskExecutor, random, region, TransitionThrottle.NONE);
    }

    /**
     * An interpreter whose executions ask {@code transitions} before every state they enter and every
     * retry: the local runtime's state-transition quota.
     */
    public Interpreter(Timer timer, List<TaskResource> resources, Executor taskExecutor, TransitionThrottle transitions) {
        this(timer, resources, taskExecutor, new Random(), LocalAccount.REGION, transitions);
    }

    private Interpreter(Timer timer, List<TaskResource> resources, Executor taskExecutor, RandomGenerator random,
            String region, TransitionThrottle transitions) {
        this.transitions = Objects.requireNonNull(transitions, "transitions");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.resources = List.copyOf(resources);
        this.taskExecutor = Objects.requireNonNull(taskExecutor, "taskExecutor");
        this.random = Objects.requireNonNull(random, "random");
        this.region = Objects.requireNonNull(region, "region");
    }

    /**
     * Parses and validates a definition, including that every Task resource is supported.
     *
     * @throws InvalidDefinitionException with the JSON path of the first problem found
     */
    public ParsedDefinition parse(String definitionJson) {
        StateMachineGraph graph = new DefinitionParser(arn -> resource(arn) != null).parse(definitionJson);
        return new ParsedDefinition(definitionJson, graph);
    }

    /** Starts a new run of an execution at the definition's {@code StartAt} state. */
    public Run start(ParsedDefinition definition, ContextObject context, JsonNode input, RunObserver observer) {
        return start(definition, context, input, observer, TaskMocks.NONE);
    }

    /**
     * Starts a new run whose mocked Task states answer from {@code mocks} instead of calling their
     * resources (an execution started with a test case of a mock configuration).
     */
    public Run start(ParsedDefinition definition, ContextObject context, JsonNode input, RunObserver observer,
            TaskMocks mocks) {
        ContextObject withInput = context.input() == null ? context.withInput(input) : context;
        return launch(definition, withInput, observer, mocks, graphRun -> graphRun.start(input));
    }

    /**
     * Continues a run from a checkpoint its observer persisted: a Wait checkpoint waits until its
     * recorded {@link Checkpoint#wakeAt()} (never recomputed), any other state runs again from its start
     * with its recorded input.
     *
     * @param context must carry {@code $$.Execution.Input}: a checkpoint holds only the state's input
     * @throws IllegalArgumentException if {@code context} has no execution input
     */
    public Run resume(ParsedDefinition definition, ContextObject context, Checkpoint checkpoint, RunObserver observer) {
        return resume(definition, context, checkpoint, observer, TaskMocks.NONE);
    }

    /** As {@link #resume(ParsedDefinition, ContextObject, Checkpoint, RunObserver)}, with mocked Task states. */
    public Run resume(ParsedDefinition definition, ContextObject context, Checkpoint checkpoint, RunObserver observer,
            TaskMocks mocks) {
        if (context.input() == null) {
            throw new IllegalArgumentException("Resuming execution " + context.executionArn()
                    + " needs its input for $$.Execution.Input; give the context object the start input");
        }
        return launch(definition, context, observer, mocks, graphRun -> graphRun.resume(checkpoint));
    }

    private Run launch(ParsedDefinition definition, ContextObject context, RunObserver observer, TaskMocks mocks,
            java.util.function.Consumer<GraphRun> begin) {
        JsonNode executionInput = context.input();
        Environment environment = new Environment(context, executionInput, observer, timer, taskExecutor, random,
                this::resource, region, transitions, Objects.requireNonNull(mocks, "mocks"));
        AtomicBoolean completed = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Timer.Cancellable> timeout = new java.util.concurrent.atomic.AtomicReference<>();
        GraphRun graphRun = GraphRun.topLevel(environment, definition.graph(), result -> {
            if (completed.compareAndSet(false, true)) {
                Timer.Cancellable pending = timeout.get();
                if (pending != null) {
                    pending.cancel();
                }
                observer.onCompleted(result.succeeded() ? RunOutcome.succeeded(result.output())
                        : RunOutcome.failed(result.error().name(), result.error().cause()));
            }
        });
        long timeoutSeconds = definition.graph().timeoutSeconds();
        if (timeoutSeconds > 0) {
            timeout.set(timer.schedule(context.startTime().plusSeconds(timeoutSeconds), () -> {
                if (completed.compareAndSet(false, true)) {
                    environment.stop();
                    observer.onCompleted(RunOutcome.timedOut("The execution did not finish within its"
                            + " TimeoutSeconds of " + timeoutSeconds + " seconds."));
                }
            }));
        }
        begin.accept(graphRun);
        return () -> {
            completed.set(true);
            environment.stop();
            Timer.Cancellable pending = timeout.get();
            if (pending != null) {
                pending.cancel();
            }
        };
    }

    private TaskResource resource(String arn) {
        for (TaskResource resource : resources) {
            if (resource.supports(arn)) {
                return resource;
            }
        }
        return null;
    }
}
