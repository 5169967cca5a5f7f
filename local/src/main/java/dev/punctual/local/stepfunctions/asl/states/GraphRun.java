package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.ExecutingState;
import dev.punctual.local.stepfunctions.asl.errors.StatesDataLimitExceededError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.ReferencePath;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.StepFunctionsLimits;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Consumer;

/**
 * The run loop of one state machine graph (the execution's, a Map iteration's or a Parallel
 * branch's): enters states, does their input/output processing in the spec's order, applies Retry
 * and Catch, and follows transitions until a terminal state or an uncaught error.
 */
public final class GraphRun {

    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    /** How a graph run ended. */
    public record Result(JsonNode output, AslError error) {
        public boolean succeeded() {
            return error == null;
        }
    }

    /** One visit of a state: its raw input and the retry counts of its retriers. */
    static final class Visit {
        final State state;
        final JsonNode rawInput;
        final Instant enteredAt;
        final int[] retries;
        int retryCount;
        /** The id of the state's entered event in the history: the errors the state raises name it. */
        long enteredEventId;

        Visit(State state, JsonNode rawInput, Instant enteredAt) {
            this.state = state;
            this.rawInput = rawInput;
            this.enteredAt = enteredAt;
            this.retries = new int[state.fields().retriers().size()];
        }

        /** Where an error of this visit arose, for its cause. */
        ExecutingState executing() {
            return new ExecutingState(state.name(), enteredEventId);
        }
    }

    final Environment environment;
    final StateMachineGraph graph;
    final CancellationScope scope;
    final boolean topLevel;
    private final Consumer<Result> done;

    GraphRun(Environment environment, StateMachineGraph graph, CancellationScope scope, boolean topLevel,
            Consumer<Result> done) {
        this.environment = environment;
        this.graph = graph;
        this.scope = scope;
        this.topLevel = topLevel;
        this.done = done;
    }

    /** The top-level run of an execution. */
    public static GraphRun topLevel(Environment environment, StateMachineGraph graph, Consumer<Result> done) {
        return new GraphRun(environment, graph, environment.scope, true, done);
    }

    /** Starts at {@code stateName} with {@code input}. */
    public void start(String stateName, JsonNode input) {
        environment.trampoline.post(() -> admitted(() -> enter(stateName, input)));
    }

    /** Starts at the graph's {@code StartAt}. */
    public void start(JsonNode input) {
        start(graph.startAt(), input);
    }

    /**
     * Continues from a checkpoint: a Wait with a recorded wake-up waits until exactly that instant
     * (its entered event is already in the history); any other state is entered again.
     */
    public void resume(Checkpoint checkpoint) {
        environment.trampoline.post(() -> {
            State state = graph.state(checkpoint.stateName());
            if (checkpoint.wakeAt() == null || !(state instanceof WaitState)) {
                admitted(() -> enter(checkpoint.stateName(), checkpoint.stateInput()));
                return;
            }
            Visit visit = new Visit(state, checkpoint.stateInput(), checkpoint.enteredAt());
            visit.enteredEventId = checkpoint.enteredEventId();
            ObjectNode context = contextObject(visit);
            try {
                JsonNode afterInput = state.applyInputPath(visit.rawInput, context);
                Attempt attempt = new Attempt(this, visit, afterInput, afterInput, context);
                attempt.schedule(checkpoint.wakeAt(), () -> attempt.complete(afterInput));
            } catch (AslError e) {
                actionFailed(visit, e);
            }
        });
    }

    private void enter(String stateName, JsonNode rawInput) {
        if (scope.stopped()) {
            return;
        }
        State state = graph.state(stateName);
        Visit visit = new Visit(state, rawInput, environment.now());
        if (topLevel) {
            environment.observer.onCheckpoint(Checkpoint.entering(stateName, rawInput, visit.enteredAt));
        }
        ObjectNode details = Json.MAPPER.createObjectNode();
        details.put("name", stateName);
        details.put("input", Json.write(rawInput));
        details.putObject("inputDetails").put("truncated", false);
        visit.enteredEventId = environment.emit(scope, state.type() + "StateEntered", details);
        attempt(visit);
    }

    private void attempt(Visit visit) {
        if (scope.stopped()) {
            return;
        }
        State state = visit.state;
        ObjectNode context = contextObject(visit);
        Attempt attempt = null;
        try {
            JsonNode afterInput = state.applyInputPath(visit.rawInput, context);
            JsonNode effective = afterInput;
            if (state.fields().parameters() != null) {
                effective = state.fields().parameters().evaluate(afterInput, context);
                checkSize(effective, "input", state);
            }
            attempt = new Attempt(this, visit, afterInput, effective, context);
            state.act(attempt);
        } catch (AslError e) {
            actionFailed(visit, e, attempt == null ? null : attempt.failedForGoodEvent());
        }
    }

    void actionSucceeded(Visit visit, Attempt attempt, JsonNode result, String chosenNext) {
        if (scope.stopped()) {
            return;
        }
        State state = visit.state;
        JsonNode output;
        try {
            if (state.producesResult()) {
                checkSize(result, "result", state);
                JsonNode selected = state.fields().resultSelector() == null ? result
                        : state.fields().resultSelector().evaluate(result, attempt.context());
                JsonNode combined;
                PathField<ReferencePath> resultPath = state.fields().resultPath();
                if (resultPath.isNull()) {
                    combined = visit.rawInput;
                } else if (resultPath.isAbsent()) {
                    combined = selected;
                } else {
                    combined = resultPath.path().placeInto(visit.rawInput, selected);
                }
                output = state.applyOutputPath(combined, attempt.context());
            } else {
                output = state.applyOutputPath(result, attempt.context());
            }
            checkSize(output, "output", state);
        } catch (AslError e) {
            actionFailed(visit, e);
            return;
        }
        exit(state, output);
        String next = chosenNext != null ? chosenNext : state.fields().next();
        transition(state.terminal() ? null : next, output);
    }

    /** The visit's input or output processing failed with {@code raised}. */
    void actionFailed(Visit visit, AslError raised) {
        actionFailed(visit, raised, null);
    }

    /**
     * The visit's action, or its input or output processing, failed with {@code raised}: the error is
     * placed in the visit's state ({@link AslError#raisedIn}), then retried, or else the state's
     * {@code failedForGoodEvent} (if any) emitted and the error caught or made the run's end.
     */
    void actionFailed(Visit visit, AslError raised, String failedForGoodEvent) {
        if (scope.stopped()) {
            return;
        }
        AslError error = raised.raisedIn(visit.executing());
        State state = visit.state;
        List<Retrier> retriers = state.fields().retriers();
        for (int i = 0; i < retriers.size(); i++) {
            Retrier retrier = retriers.get(i);
            if (!retrier.matches(error)) {
                continue;
            }
            if (visit.retries[i] < retrier.maxAttempts()) {
                Duration delay = retrier.delay(visit.retries[i], environment.random);
                visit.retries[i]++;
                visit.retryCount++;
                schedule(environment.now().plus(delay), () -> admitted(() -> attempt(visit)));
                return;
            }
            break;
        }
        if (failedForGoodEvent != null) {
            environment.emit(scope, failedForGoodEvent, Json.MAPPER.createObjectNode());
        }
        for (Catcher catcher : state.fields().catchers()) {
            if (catcher.matches(error)) {
                ObjectNode errorOutput = Json.MAPPER.createObjectNode();
                errorOutput.put("Error", error.name());
                errorOutput.put("Cause", error.cause());
                JsonNode output;
                try {
                    output = catcher.resultPath() == null ? visit.rawInput
                            : catcher.resultPath().placeInto(visit.rawInput, errorOutput);
                } catch (AslError e) {
                    finish(new Result(null, e.raisedIn(visit.executing())));
                    return;
                }
                exit(state, output);
                transition(catcher.next(), output);
                return;
            }
        }
        finish(new Result(null, error));
    }

    private void exit(State state, JsonNode output) {
        if (!state.exits()) {
            return;
        }
        ObjectNode details = Json.MAPPER.createObjectNode();
        details.put("name", state.name());
        details.put("output", Json.write(output));
        details.putObject("outputDetails").put("truncated", false);
        environment.emit(scope, state.type() + "StateExited", details);
    }

    private void transition(String next, JsonNode output) {
        if (next == null) {
            finish(new Result(output, null));
        } else {
            environment.trampoline.post(() -> admitted(() -> enter(next, output)));
        }
    }

    /**
     * Runs a state transition (a state entered, or a retry) once the transition throttle admits it:
     * at once, or later on the timer. Throttled transitions wait, as Step Functions delays a Standard
     * execution past its state-transition quota rather than failing it.
     */
    private void admitted(Runnable transition) {
        Instant now = environment.now();
        Instant admittedAt = environment.transitions.admit(now);
        if (admittedAt.isAfter(now)) {
            schedule(admittedAt, transition);
        } else {
            transition.run();
        }
    }

    private void finish(Result result) {
        if (!scope.stopped()) {
            done.accept(result);
        }
    }

    private void checkSize(JsonNode node, String what, State state) {
        int size = Json.utf8Size(node);
        if (size > StepFunctionsLimits.MAX_PAYLOAD_BYTES) {
            throw new StatesDataLimitExceededError("The state/task '" + state.name() + "' returned a "
                    + what + " with a size of " + size + " bytes exceeding the maximum number of bytes service limit ("
                    + StepFunctionsLimits.MAX_PAYLOAD_BYTES + ").");
        }
    }

    ObjectNode contextObject(Visit visit) {
        ObjectNode context = Json.MAPPER.createObjectNode();
        ObjectNode execution = context.putObject("Execution");
        execution.put("Id", environment.contextObject.executionArn());
        execution.set("Input", environment.executionInput);
        execution.put("Name", environment.contextObject.executionName());
        execution.put("RoleArn", environment.contextObject.roleArn());
        execution.put("StartTime", format(environment.contextObject.startTime()));
        boolean standard = !environment.contextObject.express();
        if (standard) {
            // This runtime has no RedriveExecution, so no execution is ever redriven (AWS: 0 until the first
            // redrive; RedriveTime appears only after one). An Express execution has no count (ContextObject).
            execution.put("RedriveCount", 0);
        }
        ObjectNode state = context.putObject("State");
        state.put("EnteredTime", format(visit.enteredAt));
        state.put("Name", visit.state.name());
        if (standard) {
            state.put("RetryCount", visit.retryCount);
        }
        ObjectNode stateMachine = context.putObject("StateMachine");
        stateMachine.put("Id", environment.contextObject.stateMachineArn());
        stateMachine.put("Name", environment.contextObject.stateMachineName());
        return context;
    }

    /** Context-object timestamps are ISO 8601 with milliseconds, as Step Functions writes them. */
    static String format(Instant instant) {
        return instant == null ? null : TIMESTAMP.format(instant);
    }

    /**
     * Schedules {@code action} on the run's timer, withdrawn if this run's scope stops; it runs in
     * order with the execution's other steps.
     */
    Timer.Cancellable schedule(Instant at, Runnable action) {
        Timer.Cancellable[] handle = new Timer.Cancellable[1];
        handle[0] = environment.timer.schedule(at, () -> environment.trampoline.post(() -> {
            scope.untrack(handle[0]);
            if (!scope.stopped()) {
                action.run();
            }
        }));
        scope.track(handle[0]);
        return handle[0];
    }
}
