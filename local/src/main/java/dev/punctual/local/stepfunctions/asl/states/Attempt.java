package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.time.Timer;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One attempt at a state's action: what the action reads (its effective input, the context object)
 * and how it ends. A visit of a state makes one attempt, and one more for each retry. The action ends
 * it exactly once with {@link #complete} or {@link #fail}, from any thread; later calls (a task
 * answering after its time-out) are ignored.
 */
public final class Attempt {

    private final GraphRun graph;
    private final GraphRun.Visit visit;
    private final JsonNode input;
    private final JsonNode rawAfterInputPath;
    private final ObjectNode context;
    private final AtomicBoolean finished = new AtomicBoolean();
    /** The event that closes the state if this attempt fails for good; touched on the run's trampoline only. */
    private String failedForGoodEvent;

    Attempt(GraphRun graph, GraphRun.Visit visit, JsonNode rawAfterInputPath, JsonNode input, ObjectNode context) {
        this.graph = graph;
        this.visit = visit;
        this.rawAfterInputPath = rawAfterInputPath;
        this.input = input;
        this.context = context;
    }

    /** The effective input: after InputPath and Parameters. */
    public JsonNode input() {
        return input;
    }

    /** The input after InputPath only (Map's ItemsPath and Task's TimeoutSecondsPath read it). */
    public JsonNode inputBeforeParameters() {
        return rawAfterInputPath;
    }

    /** The context object ({@code $$}) of this attempt. */
    public ObjectNode context() {
        return context;
    }

    public State state() {
        return visit.state;
    }

    public Instant now() {
        return graph.environment.now();
    }

    public Instant enteredAt() {
        return visit.enteredAt;
    }

    /** The evaluation environment of the execution this attempt belongs to. */
    public Environment environment() {
        return graph.environment;
    }

    GraphRun graph() {
        return graph;
    }

    /** Whether this run's scope was stopped (StopExecution, or a failed sibling iteration). */
    public boolean stopped() {
        return graph.scope.stopped();
    }

    /** Ends the action with a result; the run applies ResultSelector, ResultPath and OutputPath. */
    public void complete(JsonNode result) {
        completeTo(result, null);
    }

    /** Ends the action with a result and the next state (Choice). */
    public void completeTo(JsonNode result, String next) {
        if (finished.compareAndSet(false, true)) {
            graph.environment.trampoline.post(() -> graph.actionSucceeded(visit, this, result, next));
        }
    }

    public void fail(AslError error) {
        if (finished.compareAndSet(false, true)) {
            graph.environment.trampoline.post(() -> graph.actionFailed(visit, error, failedForGoodEvent));
        }
    }

    /**
     * Names the event that closes this attempt's state if the attempt fails and no Retrier tries it again:
     * a Map or Parallel state that started ({@code MapStateFailed}, {@code ParallelStateFailed}). As AWS
     * records it, a retried state has no such event for the attempts that failed before, only its
     * {@code …StateStarted} again for the next, and one at the end, before a Catcher's or the execution's.
     */
    public void failsForGoodWith(String eventType) {
        failedForGoodEvent = eventType;
    }

    /** The event {@link #failsForGoodWith} named, or {@code null}. */
    String failedForGoodEvent() {
        return failedForGoodEvent;
    }

    /**
     * Whether {@link #complete} or {@link #fail} was already called. It only reads: the endings that
     * race (a task's answer against its time-out) both run on the run's trampoline, one after the
     * other, so the later one sees the earlier one's end here and reports nothing.
     */
    public boolean isFinished() {
        return finished.get();
    }

    /** Emits a history event with the given details. */
    public void emit(String type, ObjectNode details) {
        graph.environment.emit(graph.scope, type, details);
    }

    /** A details object pre-filled with nothing; a convenience for actions. */
    public ObjectNode details() {
        return Json.MAPPER.createObjectNode();
    }

    /**
     * Schedules {@code action} on the run's timer, withdrawn if the run stops; the action runs in the
     * run's order with its other steps.
     */
    public Timer.Cancellable schedule(Instant at, Runnable action) {
        return graph.schedule(at, action);
    }

    /** Reports a top-level Wait's wake-up instant so a restart resumes it exactly. */
    public void checkpointWait(Instant wakeAt) {
        if (graph.topLevel && !stopped()) {
            graph.environment.observer.onCheckpoint(new Checkpoint(visit.state.name(), visit.rawInput, visit.enteredAt,
                    wakeAt, visit.enteredEventId));
        }
    }

    /** A child run of {@code graph} (a Map iteration or a Parallel branch) in a scope of its own. */
    public GraphRun childRun(StateMachineGraph childGraph, java.util.function.Consumer<GraphRun.Result> done) {
        return new GraphRun(graph.environment, childGraph, graph.scope.child(), false, done);
    }
}
