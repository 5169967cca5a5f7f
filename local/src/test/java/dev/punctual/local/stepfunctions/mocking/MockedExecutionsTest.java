package dev.punctual.local.stepfunctions.mocking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.time.ManualTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Executions started on {@code <state machine ARN>#<test case>} answer their mocked Task states from the
 * engine's mock configuration and call nothing; the states the test case leaves out call their resources.
 */
class MockedExecutionsTest {

    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    /** Calls a function until it answers {@code done}, going back to it through a Choice; retries its errors twice. */
    private static final String LOOP = """
            {"StartAt":"Step","States":{
              "Step":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
                "Parameters":{"FunctionName":"f","Payload.$":"$"},"OutputPath":"$.Payload",
                "Retry":[{"ErrorEquals":["Custom.Flaky"],"IntervalSeconds":1,"MaxAttempts":2}],
                "Next":"More"},
              "More":{"Type":"Choice","Choices":[{"Variable":"$.done","BooleanEquals":true,"Next":"Done"}],
                "Default":"Step"},
              "Done":{"Type":"Succeed"}}}""";
    private static final String CONFIG = """
            {"StateMachines":{"loop":{"TestCases":{
                "ThreeSteps":{"Step":"NotYetThenFlakyThenDone"},
                "TooFew":{"Step":"NotYetOnce"}}}},
             "MockedResponses":{
                "NotYetThenFlakyThenDone":{
                   "0":{"Return":{"StatusCode":200,"Payload":{"done":false}}},
                   "1":{"Throw":{"Error":"Custom.Flaky","Cause":"try again"}},
                   "2":{"Return":{"StatusCode":200,"Payload":{"done":false}}},
                   "3":{"Return":{"StatusCode":200,"Payload":{"done":true,"steps":3}}}},
                "NotYetOnce":{"0":{"Return":{"StatusCode":200,"Payload":{"done":false}}}}}}""";

    private final AtomicInteger calls = new AtomicInteger();
    private ManualTimer timer;
    private StepFunctionsEngine engine;
    private String machine;

    @BeforeEach
    void start() {
        timer = ManualTimer.startingAt(Instant.parse("2030-01-01T00:00:00Z"));
        TaskResource function = new TaskResource() {
            @Override
            public boolean supports(String resourceArn) {
                return resourceArn.endsWith(":lambda:invoke");
            }

            @Override
            public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
                calls.incrementAndGet();
                var result = JsonNodeFactory.instance.objectNode();
                result.putObject("Payload").put("done", true).put("real", true);
                return CompletableFuture.completedFuture(result);
            }
        };
        engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(java.util.List.of(function))
                .timer(timer)
                .mockConfiguration(MockConfiguration.parse(CONFIG))
                .build();
        machine = engine.createStateMachine("loop", LOOP, ROLE, null).stateMachineArn();
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    private ExecutionDescription run(String arn, String name) {
        String execution = engine.startExecution(arn, name, "{}").join().executionArn();
        for (int i = 0; i < 10 && !engine.describeExecution(execution).status().isClosed(); i++) {
            timer.advance(Duration.ofSeconds(1));
        }
        return engine.describeExecution(execution);
    }

    @Test
    void startExecution_withTestCase_countsInvocationsAcrossVisitsAndRetries() {
        ExecutionDescription ended = run(machine + "#ThreeSteps", "mocked");

        assertThat(ended.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(ended.output()).isEqualTo("{\"done\":true,\"steps\":3}");
        assertThat(ended.executionArn()).as("the test case is not part of the execution's ARN").endsWith(":loop:mocked");
        assertThat(calls).as("a mocked state calls nothing").hasValue(0);
    }

    @Test
    void startExecution_whenAnInvocationHasNoResponse_failsTheExecution() {
        ExecutionDescription ended = run(machine + "#TooFew", "too-few");

        assertThat(ended.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(ended.error()).isEqualTo("States.Runtime");
        assertThat(ended.cause()).contains("'TooFew'", "'Step'", "invocation 1 has none");
    }

    @Test
    void startExecution_withoutTestCase_callsTheResource() {
        ExecutionDescription ended = run(machine, "real");

        assertThat(ended.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(ended.output()).contains("\"real\":true");
        assertThat(calls).hasValue(1);
    }

    @Test
    void startExecution_withUnknownTestCase_isRefusedAsInvalidName() {
        assertThatThrownBy(() -> engine.startExecution(machine + "#Nope", "nope", "{}"))
                .isInstanceOf(StepFunctionsException.class)
                .hasMessageContaining("no test case 'Nope' for the state machine 'loop'");
    }
}
