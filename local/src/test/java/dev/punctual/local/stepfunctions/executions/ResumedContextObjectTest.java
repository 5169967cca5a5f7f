package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.time.ManualTimer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An execution that goes on from a checkpoint (after a restart replayed the journal, or after a long
 * Wait parked it) still sees its input in the context object: {@code $$.Execution.Input} is the input
 * it was started with, as in AWS, where the context object does not change over an execution's life.
 */
class ResumedContextObjectTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    /** Waits long enough to be parked, then echoes the context object's execution input. */
    private static final String WAIT_THEN_ECHO = """
            {"StartAt":"Hold","States":{
              "Hold":{"Type":"Wait","Seconds":60,"Next":"Echo"},
              "Echo":{"Type":"Pass","Parameters":{"seen.$":"$$.Execution.Input"},"End":true}}}""";
    private static final String INPUT = "{\"id\":1,\"note\":\"kept\"}";

    @TempDir
    Path data;

    @Test
    void executionInput_whenRestartedMidWait_isTheStartInput() {
        ManualTimer before = ManualTimer.startingAt(START);
        String arn;
        try (StepFunctionsEngine engine = durableEngine(before)) {
            String machine = engine.createStateMachine("echo", WAIT_THEN_ECHO, ROLE, null).stateMachineArn();
            arn = engine.startExecution(machine, "e-1", INPUT).join().executionArn();
            before.advance(Duration.ofSeconds(20));
        }

        ManualTimer after = ManualTimer.startingAt(START.plusSeconds(30));
        try (StepFunctionsEngine engine = durableEngine(after)) {
            assertThat(engine.recovery().executionsResumed()).isEqualTo(1);
            after.advance(Duration.ofSeconds(30));

            ExecutionDescription done = awaitClosed(engine, arn);
            assertThat(done.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            // Resumed at the Wait's recorded end, not run again from the start.
            assertThat(done.stopDate()).isEqualTo(START.plusSeconds(60));
            assertThat(done.output()).isEqualTo("{\"seen\":" + INPUT + "}");
        }
    }

    @Test
    void executionInput_whenParkedInALongWait_isTheStartInput() {
        ManualTimer timer = ManualTimer.startingAt(START);
        try (StepFunctionsEngine engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .timer(timer)
                .launcherThreads(1)
                .build()) {
            String machine = engine.createStateMachine("echo", WAIT_THEN_ECHO, ROLE, null).stateMachineArn();
            String arn = engine.startExecution(machine, "e-1", INPUT).join().executionArn();
            // One launcher thread runs in order: once a second start has launched, the first
            // execution's park (queued by its Wait's checkpoint) has run too.
            engine.startExecution(machine, "e-2", INPUT).join();

            timer.advance(Duration.ofSeconds(60));

            ExecutionDescription done = awaitClosed(engine, arn);
            assertThat(done.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(done.output()).isEqualTo("{\"seen\":" + INPUT + "}");
        }
    }

    private StepFunctionsEngine durableEngine(ManualTimer timer) {
        return StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of())
                .timer(timer)
                .dataDirectory(data)
                .build();
    }

    /** The launcher finishes a resumed run on its own thread; no clock is involved, so poll briefly. */
    private static ExecutionDescription awaitClosed(StepFunctionsEngine engine, String arn) {
        BooleanSupplier closed = () -> engine.describeExecution(arn).status().isClosed();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!closed.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Execution " + arn + " still running after 5 s");
            }
            Thread.onSpinWait();
        }
        return engine.describeExecution(arn);
    }
}
