package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.Run;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stepfunctions.tasks.LambdaTaskResource;
import dev.punctual.local.time.ManualTimer;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Run-level behaviour beyond single fixtures: resume, stop, checkpoints, Lambda resources. */
class InterpreterRunTest {

    private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
    private static final ContextObject CONTEXT = new ContextObject("arn:aws:states:us-east-1:1:execution:sm:e",
            "e", T0, "arn:aws:iam::1:role/r", "arn:aws:states:us-east-1:1:stateMachine:sm", "sm");
    private static final String WAIT_THEN_PASS = "{\"StartAt\":\"W\",\"States\":{"
            + "\"W\":{\"Type\":\"Wait\",\"Seconds\":100,\"Next\":\"P\"},"
            + "\"P\":{\"Type\":\"Pass\",\"Parameters\":{\"in.$\":\"$$.Execution.Input\"},\"End\":true}}}";

    private final ManualTimer timer = ManualTimer.startingAt(T0);
    private final LambdaFunctions functions = new LambdaFunctions();
    private final Interpreter interpreter = new Interpreter(timer, List.of(new LambdaTaskResource(functions)),
            Runnable::run, new Random(1), "us-east-1");

    @Test
    void resume_whenWaitCheckpointed_wakesAtRecordedInstantNotRecomputed() {
        ParsedDefinition definition = interpreter.parse(WAIT_THEN_PASS);
        RecordingObserver first = new RecordingObserver();
        Run run = interpreter.start(definition, CONTEXT, Json.parse("{\"a\":1}"), first);
        Checkpoint waiting = first.checkpoints.get(first.checkpoints.size() - 1);
        assertThat(waiting.wakeAt()).isEqualTo(T0.plusSeconds(100));
        run.stop();

        timer.advanceTo(T0.plusSeconds(40));
        RecordingObserver resumed = new RecordingObserver();
        interpreter.resume(definition, CONTEXT.withInput(Json.parse("{\"a\":1}")), waiting, resumed);
        timer.advanceTo(T0.plusSeconds(99));
        assertThat(resumed.outcome.get()).isNull();
        timer.advanceTo(T0.plusSeconds(100));

        assertThat(resumed.outcome.get().output()).isEqualTo(Json.parse("{\"in\":{\"a\":1}}"));
        assertThat(resumed.eventTypes()).containsExactly("WaitStateExited", "PassStateEntered", "PassStateExited");
        assertThat(first.completions).isEmpty();
    }

    @Test
    void resume_whenContextHasNoExecutionInput_refusesRatherThanRunWithNull() {
        ParsedDefinition definition = interpreter.parse(WAIT_THEN_PASS);
        Checkpoint waiting = new Checkpoint("W", Json.parse("{\"a\":1}"), T0, T0.plusSeconds(100), 2);

        assertThatThrownBy(
                () -> interpreter.resume(definition, CONTEXT, waiting, new RecordingObserver()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("$$.Execution.Input");
        assertThat(timer.pending()).isZero();
    }

    @Test
    void taskWaitingForAThread_hasNotStarted_soItsTimeoutCountsFromTheCall() {
        java.util.Deque<Runnable> queued = new java.util.ArrayDeque<>();
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        TaskResource counting = deleteItem(calls,
                () -> java.util.concurrent.CompletableFuture.completedFuture(Json.parse("{}")));
        Interpreter queueing = new Interpreter(timer, List.of(counting), queued::add, new Random(1), "us-east-1");
        ParsedDefinition definition = queueing.parse("{\"StartAt\":\"D\",\"States\":{\"D\":{\"Type\":\"Task\","
                + "\"Resource\":\"arn:aws:states:::dynamodb:deleteItem\",\"TimeoutSeconds\":30,\"Retry\":[{\"ErrorEquals\":"
                + "[\"States.Timeout\"],\"IntervalSeconds\":1,\"MaxAttempts\":1}],\"End\":true}}}");
        RecordingObserver observer = new RecordingObserver();
        queueing.start(definition, CONTEXT, Json.parse("{}"), observer);

        timer.advanceTo(T0.plusSeconds(45));
        assertThat(observer.eventTypes()).as("queued 45 s for a task thread").contains("TaskScheduled")
                .doesNotContain("TaskStarted", "TaskTimedOut");
        queued.poll().run();

        assertThat(calls).hasValue(1);
        assertThat(queued).isEmpty();
        assertThat(observer.outcome.get()).isNotNull();
        assertThat(observer.eventTypes()).containsSubsequence("TaskScheduled", "TaskStarted", "TaskSucceeded")
                .doesNotContain("TaskTimedOut");
    }

    @Test
    void stop_whenWaiting_withdrawsWakeUpAndReportsNothingMore() {
        ParsedDefinition definition = interpreter.parse(WAIT_THEN_PASS);
        RecordingObserver observer = new RecordingObserver();
        Run run = interpreter.start(definition, CONTEXT, Json.parse("{}"), observer);
        int events = observer.events.size();

        run.stop();
        timer.advanceTo(T0.plusSeconds(500));

        assertThat(timer.pending()).isZero();
        assertThat(observer.events).hasSize(events);
        assertThat(observer.completions).isEmpty();
    }

    @Test
    void lambdaInvoke_whenFunctionRegistered_returnsPayloadEnvelope() {
        functions.register("greet", payload -> Json.parse("{\"hello\":\"" + payload.get("name").asText() + "\"}"));
        JsonNode output = runToEnd("{\"StartAt\":\"L\",\"States\":{\"L\":{\"Type\":\"Task\","
                + "\"Resource\":\"arn:aws:states:::lambda:invoke\",\"Parameters\":{\"FunctionName\":"
                + "\"arn:aws:lambda:us-east-1:123456789012:function:greet:$LATEST\",\"Payload\":{\"name.$\":\"$.n\"}},"
                + "\"ResultSelector\":{\"p.$\":\"$.Payload\",\"s.$\":\"$.StatusCode\"},\"End\":true}}}",
                "{\"n\":\"Ada\"}").output();

        assertThat(output).isEqualTo(Json.parse("{\"p\":{\"hello\":\"Ada\"},\"s\":200}"));
    }

    @Test
    void lambdaFunctionArn_whenFunctionThrows_failsWithExceptionClassAndIsCatchable() {
        functions.register("boom", payload -> {
            throw new IllegalStateException("no luck");
        });
        RecordingObserver observer = new RecordingObserver();
        RunOutcome outcome = runToEnd("{\"StartAt\":\"L\",\"States\":{\"L\":{\"Type\":\"Task\","
                + "\"Resource\":\"arn:aws:lambda:us-east-1:123456789012:function:boom\","
                + "\"Catch\":[{\"ErrorEquals\":[\"java.lang.IllegalStateException\"],\"Next\":\"C\"}],\"End\":true},"
                + "\"C\":{\"Type\":\"Pass\",\"End\":true}}}", "{}", observer);

        assertThat(outcome.output().get("Error").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(Json.parse(outcome.output().get("Cause").asText()).get("errorMessage").asText()).isEqualTo("no luck");
        assertThat(observer.eventTypes()).contains("LambdaFunctionScheduled", "LambdaFunctionFailed");
    }

    @Test
    void lambdaInvoke_whenFunctionUnknown_failsWithResourceNotFound() {
        RunOutcome outcome = runToEnd("{\"StartAt\":\"L\",\"States\":{\"L\":{\"Type\":\"Task\","
                + "\"Resource\":\"arn:aws:states:::lambda:invoke\",\"Parameters\":{\"FunctionName\":\"nobody\"},"
                + "\"End\":true}}}", "{}");

        assertThat(outcome.error()).isEqualTo("Lambda.ResourceNotFoundException");
    }

    @Test
    void task_whenResourceThrowsAnError_failsTheExecutionWithStatesRuntimeNotCaughtNorRetried() {
        RecordingObserver observer = runFailingResource(() -> {
            throw new NoClassDefFoundError("dev/punctual/Missing for item secret-42");
        });

        assertFailedInsideTheRuntime(observer, "java.lang.NoClassDefFoundError");
    }

    @Test
    void task_whenResourceAnswersWithAnError_failsTheExecutionWithStatesRuntimeNotCaughtNorRetried() {
        RecordingObserver observer = runFailingResource(
                () -> java.util.concurrent.CompletableFuture.failedFuture(new OutOfMemoryError("secret-42")));

        assertFailedInsideTheRuntime(observer, "java.lang.OutOfMemoryError");
    }

    /**
     * Runs a Task that retries and catches everything on a resource that fails with a Java Error, on a
     * task executor that, like a pool's thread, lets what escapes a task end that task and nothing else.
     */
    private RecordingObserver runFailingResource(
            java.util.function.Supplier<java.util.concurrent.CompletionStage<JsonNode>> answer) {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        TaskResource failing = deleteItem(calls, answer);
        List<Throwable> escaped = new java.util.concurrent.CopyOnWriteArrayList<>();
        Interpreter pooled = new Interpreter(timer, List.of(failing), task -> {
            try {
                task.run();
            } catch (Throwable uncaught) {
                escaped.add(uncaught);
            }
        }, new Random(1), "us-east-1");
        RecordingObserver observer = new RecordingObserver();
        pooled.start(pooled.parse("{\"StartAt\":\"D\",\"States\":{\"D\":{\"Type\":\"Task\","
                + "\"Resource\":\"arn:aws:states:::dynamodb:deleteItem\",\"Retry\":[{\"ErrorEquals\":[\"States.ALL\"],"
                + "\"IntervalSeconds\":1,\"MaxAttempts\":3}],\"Catch\":[{\"ErrorEquals\":[\"States.ALL\"],\"Next\":\"C\"}],"
                + "\"End\":true},\"C\":{\"Type\":\"Pass\",\"End\":true}}}"), CONTEXT, Json.parse("{}"), observer);
        timer.runAll(1_000);

        assertThat(escaped).as("nothing escapes the task thread").isEmpty();
        assertThat(calls).as("States.Runtime is not retried").hasValue(1);
        return observer;
    }

    /** {@code dynamodb:deleteItem}, counting its calls and answering each with {@code answer}. */
    private static TaskResource deleteItem(java.util.concurrent.atomic.AtomicInteger calls,
            java.util.function.Supplier<java.util.concurrent.CompletionStage<JsonNode>> answer) {
        return new TaskResource() {
            @Override
            public boolean supports(String arn) {
                return arn.equals("arn:aws:states:::dynamodb:deleteItem");
            }

            @Override
            public java.util.concurrent.CompletionStage<JsonNode> invoke(String arn, JsonNode parameters,
                    ContextObject context) {
                calls.incrementAndGet();
                return answer.get();
            }
        };
    }

    private static void assertFailedInsideTheRuntime(RecordingObserver observer, String errorClass) {
        RunOutcome outcome = observer.outcome.get();
        assertThat(outcome).as("the execution ends").isNotNull();
        assertThat(outcome.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(outcome.error()).isEqualTo("States.Runtime");
        assertThat(outcome.cause()).contains("'D'", errorClass).doesNotContain("secret-42");
        assertThat(observer.eventTypes()).containsSubsequence("TaskStarted", "TaskFailed").doesNotContain("PassStateEntered");
    }

    private RunOutcome runToEnd(String definition, String input) {
        return runToEnd(definition, input, new RecordingObserver());
    }

    private RunOutcome runToEnd(String definition, String input, RecordingObserver observer) {
        interpreter.start(interpreter.parse(definition), CONTEXT, Json.parse(input), observer);
        timer.runAll(1_000);
        return observer.outcome.get();
    }
}
