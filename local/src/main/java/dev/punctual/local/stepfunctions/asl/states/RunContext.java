package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.ExecutionContext;
import dev.punctual.local.stepfunctions.asl.ExecutionObserver;
import dev.punctual.local.stepfunctions.asl.TaskResource;
import dev.punctual.local.stepfunctions.asl.TransitionThrottle;
import dev.punctual.local.time.Timer;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/** What every state of one execution shares: its context, observer, timer, task resources. */
public final class RunContext {

    final ExecutionContext execution;
    final JsonNode executionInput;
    final ExecutionObserver observer;
    final Timer timer;
    final Executor taskExecutor;
    final RandomGenerator random;
    final Function<String, TaskResource> resources;
    final String region;
    final TransitionThrottle transitions;
    final Trampoline trampoline = new Trampoline();
    final Scope scope = new Scope(null);

    public RunContext(ExecutionContext execution, JsonNode executionInput, ExecutionObserver observer, Timer timer,
            Executor taskExecutor, RandomGenerator random, Function<String, TaskResource> resources, String region) {
        this(execution, executionInput, observer, timer, taskExecutor, random, resources, region, TransitionThrottle.NONE);
    }

    /** @param transitions admits each state entered and each retry (Step Functions' state-transition quota) */
    public RunContext(ExecutionContext execution, JsonNode executionInput, ExecutionObserver observer, Timer timer,
            Executor taskExecutor, RandomGenerator random, Function<String, TaskResource> resources, String region,
            TransitionThrottle transitions) {
        this.transitions = transitions;
        this.execution = execution;
        this.executionInput = executionInput;
        this.observer = observer;
        this.timer = timer;
        this.taskExecutor = taskExecutor;
        this.random = random;
        this.resources = resources;
        this.region = region;
    }

    Instant now() {
        return timer.clock().instant();
    }

    void emit(Scope from, String type, ObjectNode details) {
        if (!from.stopped()) {
            observer.onEvent(type, details, now());
        }
    }

    /** Stops everything the execution has pending (StopExecution). */
    public void stop() {
        scope.stop();
    }

    public boolean stopped() {
        return scope.stopped();
    }
}
