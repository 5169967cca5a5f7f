package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.time.ManualTimer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Wait that goes on from its checkpoint (after a restart replayed the journal, or after it was parked)
 * does not enter its state again, so the id of its entered event comes from the checkpoint: an error the
 * resumed Wait raises names the event that entered it, as AWS words it ({@code (entered at the event id
 * #N)}).
 */
class ResumedWaitCauseTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    /** ExecutionStarted #1, PassStateEntered #2, PassStateExited #3, WaitStateEntered #4. */
    private static final String PASS_THEN_WAIT = """
            {"StartAt":"First","States":{
              "First":{"Type":"Pass","Next":"Hold"},
              "Hold":{"Type":"Wait","Seconds":60,"OutputPath":"$.missing","End":true}}}""";
    private static final String CAUSE = "An error occurred while executing the state 'Hold' (entered at the event"
            + " id #4). Invalid path '$.missing' : No results for path: $['missing']";

    @TempDir
    Path data;

    @Test
    void waitResumedAfterARestart_namesItsEnteredEventFromTheJournal() {
        ManualTimer before = ManualTimer.startingAt(START);
        String arn;
        try (StepFunctionsEngine engine = durableEngine(before)) {
            String machine = engine.createStateMachine("hold", PASS_THEN_WAIT, ROLE, null).stateMachineArn();
            arn = engine.startExecution(machine, "e-1", "{}").join().executionArn();
            before.advance(Duration.ofSeconds(20));
        }

        ManualTimer after = ManualTimer.startingAt(START.plusSeconds(30));
        try (StepFunctionsEngine engine = durableEngine(after)) {
            assertThat(engine.recovery().executionsResumed()).isEqualTo(1);
            after.advance(Duration.ofSeconds(30));

            ExecutionDescription done = awaitClosed(engine, arn);
            assertThat(done.status()).isEqualTo(ExecutionStatus.FAILED);
            assertThat(done.cause()).isEqualTo(CAUSE);
        }
    }

    @Test
    void waitResumedAfterItWasParked_namesItsEnteredEvent() {
        ManualTimer timer = ManualTimer.startingAt(START);
        try (StepFunctionsEngine engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .timer(timer)
                .launcherThreads(1)
                .build()) {
            String machine = engine.createStateMachine("hold", PASS_THEN_WAIT, ROLE, null).stateMachineArn();
            String arn = engine.startExecution(machine, "e-1", "{}").join().executionArn();
            // One launcher thread runs in order: once a second start has launched, the first one's park has run.
            engine.startExecution(machine, "e-2", "{}").join();

            timer.advance(Duration.ofSeconds(60));

            ExecutionDescription done = awaitClosed(engine, arn);
            assertThat(done.status()).isEqualTo(ExecutionStatus.FAILED);
            assertThat(done.cause()).isEqualTo(CAUSE);
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
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!engine.describeExecution(arn).status().isClosed()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Execution " + arn + " still running after 5 s");
            }
            Thread.onSpinWait();
        }
        return engine.describeExecution(arn);
    }
}
