package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine built with {@link EngineBuilder#resumeRecoveredLater()} replays its data directory but runs
 * none of what it recovered until {@link StepFunctionsEngine#resumeRecovered()}: a Task in flight when the
 * engine stopped runs again only then, once its owner has what the Task invokes ready.
 */
class ResumeRecoveredLaterTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    /** Wall time the launcher may take to run what is asked of it: a hang guard, no clock is involved. */
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String RESOURCE = "arn:aws:states:::test:call";
    private static final String ONE_TASK = """
            {"StartAt":"Call","States":{"Call":{"Type":"Task","Resource":"%s","End":true}}}""".formatted(RESOURCE);

    @TempDir
    Path data;

    @Test
    void aTaskInFlightAtTheStop_runsAgainOnlyWhenTheOwnerResumesTheRecoveredExecutions() {
        String arn;
        Calls stopped = new Calls(false);
        try (StepFunctionsEngine engine = durableEngine(ManualTimer.startingAt(START), stopped, false)) {
            String machine = engine.createStateMachine("call", ONE_TASK, ROLE, null).stateMachineArn();
            arn = engine.startExecution(machine, "e-1", "{}").join().executionArn();
            Await.until("the Task in flight", WAIT, () -> stopped.count.get() == 1);
        }

        Calls resumed = new Calls(true);
        try (StepFunctionsEngine engine = durableEngine(ManualTimer.startingAt(START.plusSeconds(5)), resumed, true)) {
            assertThat(resumed.count.get()).as("recovered, not run on yet").isZero();
            assertThat(engine.describeExecution(arn).status()).isEqualTo(ExecutionStatus.RUNNING);
            assertThat(engine.recovery()).isEqualTo(Recovery.NONE);

            Recovery recovery = engine.resumeRecovered();

            assertThat(recovery.executionsResumed()).isEqualTo(1);
            assertThat(engine.recovery()).isEqualTo(recovery);
            Await.until("the Task run again, and its execution closed", WAIT,
                    () -> engine.describeExecution(arn).status().isClosed());
            assertThat(resumed.count.get()).as("the Task run again").isEqualTo(1);
            assertThat(engine.describeExecution(arn).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(engine.resumeRecovered()).as("once").isEqualTo(recovery);
            assertThat(resumed.count.get()).isEqualTo(1);
        }
    }

    private StepFunctionsEngine durableEngine(ManualTimer timer, TaskResource calls, boolean resumeLater) {
        EngineBuilder builder = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of(calls))
                .timer(timer)
                .launcherThreads(1)
                .dataDirectory(data);
        return (resumeLater ? builder.resumeRecoveredLater() : builder).build();
    }

    /** Counts its calls; answers at once, or never (a Task still in flight when the engine stops). */
    private static final class Calls implements TaskResource {

        final AtomicInteger count = new AtomicInteger();
        private final boolean answers;

        Calls(boolean answers) {
            this.answers = answers;
        }

        @Override
        public boolean supports(String resourceArn) {
            return RESOURCE.equals(resourceArn);
        }

        @Override
        public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
            count.incrementAndGet();
            return answers ? CompletableFuture.completedFuture(JsonNodeFactory.instance.objectNode()) : new CompletableFuture<>();
        }
    }
}
