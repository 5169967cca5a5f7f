package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.RunObserver;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.asl.run.TransitionThrottle;
import dev.punctual.local.time.Timer;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * The evaluation environment of one execution's run, shared by every graph run, state and attempt in
 * it: the execution's context object, the observer its events go to, the timer its waits go on, the
 * task resources and threads, the transition throttle, the trampoline that keeps its steps in order,
 * and the cancellation scope that a stop withdraws everything through.
 */
public final class Environment {

    final ContextObject contextObject;
    final JsonNode executionInput;
    final RunObserver observer;
    final Timer timer;
    final Executor taskExecutor;
    final RandomGenerator random;
    final Function<String, TaskResource> resources;
    final String region;
    final TransitionThrottle transitions;
    final TaskMocks mocks;
    final Trampoline trampoline = new Trampoline();
    final CancellationScope scope = new CancellationScope(null);

    /**
     * @param contextObject the execution's part of {@code $$}
     * @param executionInput {@code $$.Execution.Input}
     * @param resources the task resource serving a Task's {@code Resource} ARN
     * @param region the Region reported for resources whose ARN names none
     * @param transitions admits each state entered and each retry (Step Functions' state-transition quota)
     * @param mocks the answers of mocked Task states (the execution's test case), {@link TaskMocks#NONE} for none
     */
    public Environment(ContextObject contextObject, JsonNode executionInput, RunObserver observer, Timer timer,
            Executor taskExecutor, RandomGenerator random, Function<String, TaskResource> resources, String region,
            TransitionThrottle transitions, TaskMocks mocks) {
        this.transitions = transitions;
        this.mocks = mocks;
        this.contextObject = contextObject;
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

    /** Reports an event unless {@code from} was stopped; its id in the history, or {@code -1} if not reported. */
    long emit(CancellationScope from, String type, ObjectNode details) {
        if (from.stopped()) {
            return -1;
        }
        return observer.onEvent(type, details, now());
    }

    /** Stops everything the execution has pending (StopExecution). */
    public void stop() {
        scope.stop();
    }

    public boolean stopped() {
        return scope.stopped();
    }
}
