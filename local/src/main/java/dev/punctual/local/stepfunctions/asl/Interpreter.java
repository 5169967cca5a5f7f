package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.states.GraphRun;
import dev.punctual.local.stepfunctions.asl.states.RunContext;
import dev.punctual.local.stepfunctions.asl.states.StateMachineGraph;
import dev.punctual.local.time.Timer;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;

/**
 * The Amazon States Language interpreter (JSONPath query language). Executions hold no thread while
 * they wait: Wait states, retry back-off and task time-outs are entries of the shared {@link Timer},
 * and Task resources are called on {@code taskExecutor}.
 *
 * <p>After a restart, {@link #resume} continues a top-level Wait at its recorded instant; any other
 * checkpointed state, including a Map or Parallel state interrupted half-way, runs again from its
 * start with its recorded input (retry counts start again at zero).
 */
public final class Interpreter implements AslInterpreter {

    private final Timer timer;
    private final List<TaskResource> resources;
    private final Executor taskExecutor;
    private final RandomGenerator random;
    private final String region;
    private final TransitionThrottle transitions;

    /**
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

    /** A parsed definition: its text and its validated graph. */
    private record Definition(String json, StateMachineGraph graph) implements ParsedDefinition {
    }

    @Override
    public ParsedDefinition parse(String definitionJson) {
        StateMachineGraph graph = new DefinitionParser(arn -> resource(arn) != null).parse(definitionJson);
        return new Definition(definitionJson, graph);
    }

    @Override
    public ExecutionRun start(ParsedDefinition definition, ExecutionContext context, JsonNode input,
            ExecutionObserver observer) {
        ExecutionContext withInput = context.input() == null ? context.withInput(input) : context;
        return launch(definition, withInput, observer, graphRun -> graphRun.start(input));
    }

    @Override
    public ExecutionRun resume(ParsedDefinition definition, ExecutionContext context, Checkpoint checkpoint,
            ExecutionObserver observer) {
        return launch(definition, context, observer, graphRun -> graphRun.resume(checkpoint));
    }

    private ExecutionRun launch(ParsedDefinition definition, ExecutionContext context, ExecutionObserver observer,
            java.util.function.Consumer<GraphRun> begin) {
        if (!(definition instanceof Definition parsed)) {
            throw new IllegalArgumentException("This definition was not parsed by this interpreter");
        }
        JsonNode executionInput = context.input() == null ? Json.MAPPER.nullNode() : context.input();
        RunContext run = new RunContext(context, executionInput, observer, timer, taskExecutor, random,
                this::resource, region, transitions);
        AtomicBoolean completed = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Timer.Cancellable> timeout = new java.util.concurrent.atomic.AtomicReference<>();
        GraphRun graphRun = GraphRun.topLevel(run, parsed.graph(), result -> {
            if (completed.compareAndSet(false, true)) {
                Timer.Cancellable pending = timeout.get();
                if (pending != null) {
                    pending.cancel();
                }
                observer.onCompleted(result.succeeded() ? ExecutionOutcome.succeeded(result.output())
                        : ExecutionOutcome.failed(result.error().error(), result.error().cause()));
            }
        });
        long timeoutSeconds = parsed.graph().timeoutSeconds();
        if (timeoutSeconds > 0) {
            timeout.set(timer.schedule(context.startTime().plusSeconds(timeoutSeconds), () -> {
                if (completed.compareAndSet(false, true)) {
                    run.stop();
                    observer.onCompleted(ExecutionOutcome.timedOut("The execution did not finish within its"
                            + " TimeoutSeconds of " + timeoutSeconds + " seconds."));
                }
            }));
        }
        begin.accept(graphRun);
        return () -> {
            completed.set(true);
            run.stop();
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
