package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.local.time.ManualTimer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One run of our interpreter on a manual clock, with Task answers from {@link CannedTaskResource}:
 * time jumps from one wake-up to the next until the execution ends. The golden fixtures and the
 * differential tests run cases this way.
 */
final class ManualClockRun {

    static final String EXECUTION_ARN = "arn:aws:states:us-east-1:123456789012:execution:sm:exec-1";
    static final String EXECUTION_NAME = "exec-1";
    static final String ROLE_ARN = "arn:aws:iam::123456789012:role/sfn";
    static final String STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:sm";
    static final String STATE_MACHINE_NAME = "sm";

    final ManualTimer timer;
    final CannedTaskResource tasks;
    final RecordingObserver observer = new RecordingObserver();
    final List<Instant> wakeUps = new ArrayList<>();

    private ManualClockRun(Instant start, JsonNode cannedTasks) {
        this.timer = ManualTimer.startingAt(start);
        this.tasks = new CannedTaskResource(cannedTasks);
    }

    /**
     * Parses {@code definition} (throwing {@link InvalidDefinitionException} as CreateStateMachine
     * would refuse it) and runs it with {@code input} from {@code start} to its end.
     */
    static ManualClockRun run(JsonNode definition, JsonNode input, Instant start, JsonNode cannedTasks) {
        ManualClockRun run = new ManualClockRun(start, cannedTasks);
        Interpreter interpreter = new Interpreter(run.timer, List.of(run.tasks), Runnable::run, new Random(7),
                "us-east-1");
        ParsedDefinition parsed = interpreter.parse(Json.write(definition));
        ContextObject context = new ContextObject(EXECUTION_ARN, EXECUTION_NAME, start, ROLE_ARN,
                STATE_MACHINE_ARN, STATE_MACHINE_NAME);
        interpreter.start(parsed, context, input, run.observer);
        for (int i = 0; i < 10_000 && run.observer.outcome.get() == null && run.timer.nextWakeUp() != null; i++) {
            run.wakeUps.addAll(run.timer.advanceTo(run.timer.nextWakeUp()));
        }
        return run;
    }

    /** How the run ended, or {@code null} if it had not ended when time ran out of wake-ups. */
    RunOutcome outcome() {
        return observer.outcome.get();
    }

    Instant finishedAt() {
        return timer.clock().instant();
    }
}
