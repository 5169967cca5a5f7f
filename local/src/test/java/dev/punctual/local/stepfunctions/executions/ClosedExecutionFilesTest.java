package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.retention.Retention;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.time.ManualTimer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable engine whose compactions file closed executions in closed-execution files and leave them out
 * of every later snapshot: after restarts, what was kept is still there with its whole history, what was
 * forgotten is not, what ran resumes, and a machine deleted and created again under its name does not
 * inherit the old one's executions. Each restart compacts what it replayed, so the third start reads the
 * closed executions from the files the second one wrote.
 */
class ClosedExecutionFilesTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String HOLD_TEN_SECONDS = """
            {"StartAt":"Hold","States":{
              "Hold":{"Type":"Wait","Seconds":10,"Next":"Done"},
              "Done":{"Type":"Pass","Result":{"done":true},"End":true}}}""";

    @TempDir
    Path data;

    @Test
    void restart_afterClosedExecutionsWereFiled_keepsWhatWasKept_forgetsTheRest_andResumesWhatRan() throws IOException {
        ManualTimer timer = ManualTimer.startingAt(START);
        String machine;
        List<String> historyBefore;
        try (StepFunctionsEngine engine = compactingEveryBatch(timer)) {
            machine = engine.createStateMachine("hold", HOLD_TEN_SECONDS, ROLE, null).stateMachineArn();
            // One start a second, each closing ten seconds later: e-0 closes first, e-49 last.
            for (int i = 0; i < 50; i++) {
                engine.startExecution(machine, "e-" + i, "{}").join();
                timer.advance(Duration.ofSeconds(1));
            }
            timer.advance(Duration.ofSeconds(10));
            awaitClosed(engine, arn(engine, "e-49"));
            historyBefore = eventTypes(engine, arn(engine, "e-49"));
            for (int i = 0; i < 20; i++) {
                engine.startExecution(machine, "r-" + i, "{}").join();
            }
        }
        compactingAtStart(timer).close();

        try (StepFunctionsEngine engine = compactingAtStart(timer)) {
            assertThat(files("closed-")).as("closed-execution files").isNotEmpty();
            assertThat(engine.recovery().executionsResumed()).isEqualTo(20);
            assertThat(engine.closedExecutionsKept()).isEqualTo(30);
            for (int i = 20; i < 50; i++) {
                assertThat(engine.describeExecution(arn(engine, "e-" + i)).status())
                        .isEqualTo(ExecutionStatus.SUCCEEDED);
            }
            assertThat(eventTypes(engine, arn(engine, "e-49"))).isEqualTo(historyBefore);
            for (int i = 0; i < 20; i++) {
                String forgotten = arn(engine, "e-" + i);
                assertThatThrownBy(() -> engine.describeExecution(forgotten))
                        .isInstanceOfSatisfying(StepFunctionsException.class,
                                e -> assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_DOES_NOT_EXIST));
            }
            timer.advance(Duration.ofSeconds(10));
            IntStream.range(0, 20).forEach(i -> awaitClosed(engine, arn(engine, "r-" + i)));
        }
    }

    @Test
    void restart_readsFiledExecutionsInTheOrderTheyClosed_soRetentionStillForgetsTheOldestFirst() {
        ManualTimer timer = ManualTimer.startingAt(START);
        try (StepFunctionsEngine engine = compactingAtStart(timer)) {
            String machine = engine.createStateMachine("hold", HOLD_TEN_SECONDS, ROLE, null).stateMachineArn();
            for (int i = 0; i < 30; i++) {
                engine.startExecution(machine, "e-" + i, "{}").join();
                timer.advance(Duration.ofSeconds(1));
            }
            timer.advance(Duration.ofSeconds(10));
            awaitClosed(engine, arn(engine, "e-29"));
        }
        // The first restart files all 30 in one file; the second reads them back from it.
        compactingAtStart(timer).close();

        try (StepFunctionsEngine engine = compactingAtStart(timer)) {
            String machine = engine.stateMachineArn("hold");
            for (int i = 0; i < 10; i++) {
                engine.startExecution(machine, "late-" + i, "{}").join();
            }
            timer.advance(Duration.ofSeconds(10));
            IntStream.range(0, 10).forEach(i -> awaitClosed(engine, arn(engine, "late-" + i)));

            for (int i = 0; i < 10; i++) {
                String oldest = arn(engine, "e-" + i);
                assertThatThrownBy(() -> engine.describeExecution(oldest)).as(oldest)
                        .isInstanceOfSatisfying(StepFunctionsException.class,
                                e -> assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_DOES_NOT_EXIST));
            }
            for (int i = 10; i < 30; i++) {
                assertThat(engine.describeExecution(arn(engine, "e-" + i)).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            }
        }
    }

    @Test
    void closedExecutionOfADeletedMachine_isNotGivenToTheMachineCreatedAgainUnderItsName() {
        ManualTimer timer = ManualTimer.startingAt(START);
        try (StepFunctionsEngine engine = compactingAtStart(timer)) {
            String doomed = engine.createStateMachine("doomed", HOLD_TEN_SECONDS, ROLE, null).stateMachineArn();
            String other = engine.createStateMachine("other", HOLD_TEN_SECONDS, ROLE, null).stateMachineArn();
            engine.startExecution(doomed, "x", "{}").join();
            // Kept, so the closed-execution file it shares with x outlives x's machine.
            engine.startExecution(other, "y", "{}").join();
            timer.advance(Duration.ofSeconds(10));
            awaitClosed(engine, arn(engine, "x"));
            awaitClosed(engine, arn(engine, "y"));
        }
        try (StepFunctionsEngine engine = compactingAtStart(timer)) {
            engine.deleteStateMachine(engine.stateMachineArn("doomed"));
            timer.advance(Duration.ofSeconds(1));
            engine.createStateMachine("doomed", HOLD_TEN_SECONDS, ROLE, null);
        }
        compactingAtStart(timer).close();

        try (StepFunctionsEngine engine = compactingAtStart(timer)) {
            String x = arn(engine, "x");
            assertThatThrownBy(() -> engine.describeExecution(x))
                    .isInstanceOfSatisfying(StepFunctionsException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_DOES_NOT_EXIST));
            assertThat(engine.describeExecution(arn(engine, "y")).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        }
    }

    /** Compacts after every batch, so closed executions are filed while the engine runs too. */
    private StepFunctionsEngine compactingEveryBatch(ManualTimer timer) {
        return engine(timer, 1);
    }

    /** Compacts only when it starts, having replayed something: all the closed executions in one file. */
    private StepFunctionsEngine compactingAtStart(ManualTimer timer) {
        return engine(timer, Long.MAX_VALUE);
    }

    private StepFunctionsEngine engine(ManualTimer timer, long journalSegmentBytes) {
        return StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of())
                .timer(timer)
                // One launcher thread closes executions in the order they fall due, which retention keeps.
                .launcherThreads(1)
                .dataDirectory(data)
                .closedExecutionRetention(Retention.of(30, Duration.ofDays(1)))
                .journalSegmentBytes(journalSegmentBytes)
                .build();
    }

    private static String arn(StepFunctionsEngine engine, String execution) {
        String machine = execution.equals("x") ? "doomed" : execution.equals("y") ? "other" : "hold";
        return engine.stateMachineArn(machine).replace(":stateMachine:", ":execution:") + ":" + execution;
    }

    private static List<String> eventTypes(StepFunctionsEngine engine, String arn) {
        return engine.getExecutionHistory(arn, 1000, null, false).items().stream().map(HistoryEvent::type).toList();
    }

    private List<Path> files(String prefix) throws IOException {
        try (Stream<Path> files = Files.list(data)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    /** Runs finish on the launcher's threads; no clock is involved, so poll briefly. */
    private static void awaitClosed(StepFunctionsEngine engine, String arn) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!engine.describeExecution(arn).status().isClosed()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Execution " + arn + " still running after 5 s");
            }
            Thread.onSpinWait();
        }
    }
}
