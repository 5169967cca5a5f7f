package dev.punctual.local.stepfunctions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionListener;
import dev.punctual.local.stepfunctions.executions.ExecutionLog;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ManualTimer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeStateMachineResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.InvalidArnException;
import software.amazon.awssdk.services.sfn.model.InvalidDefinitionException;
import software.amazon.awssdk.services.sfn.model.LogLevel;
import software.amazon.awssdk.services.sfn.model.StateMachineType;
import software.amazon.awssdk.services.sfn.model.StateMachineTypeNotSupportedException;

/**
 * Express workflows on the engine with AWS's semantics, through the SDK client where an API call is
 * concerned: the type on Create/DescribeStateMachine, no name-based idempotency, the API calls Express
 * executions do not support, the five-minute limit, the integration patterns an Express definition may
 * not use, the {@code .sync} integration of a Standard parent, StartSyncExecution, logging as the only
 * record, and billing by request and GB-second.
 */
class ExpressWorkflowsTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Waits the seconds its input says, then answers them back. */
    private static final String WAIT_FROM_INPUT = """
            {"StartAt":"Hold","States":{
              "Hold":{"Type":"Wait","SecondsPath":"$.seconds","Next":"Done"},
              "Done":{"Type":"Pass","Parameters":{"waited.$":"$.seconds"},"End":true}}}""";
    private static final String FAIL = """
            {"StartAt":"Boom","States":{"Boom":{"Type":"Fail","Error":"Custom.Error","Cause":"it broke"}}}""";

    private ManualTimer timer;
    private StepFunctionsEngine engine;
    private StepFunctionsServer server;
    private SfnClient sfn;

    @BeforeEach
    void start() {
        timer = ManualTimer.startingAt(START);
        engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .timer(timer)
                .build();
        server = StepFunctionsServer.start(engine, new InetSocketAddress("127.0.0.1", 0));
        sfn = dev.punctual.local.runtime.LocalClients.stepFunctions(URI.create("http://127.0.0.1:" + server.port()));
    }

    @AfterEach
    void stop() {
        sfn.close();
        server.close();
        engine.close();
    }

    private String express(String name, String definition, LogLevel level) {
        return sfn.createStateMachine(b -> b.name(name).definition(definition).roleArn(ROLE).type(StateMachineType.EXPRESS)
                .loggingConfiguration(l -> l.level(level).includeExecutionData(false))).stateMachineArn();
    }

    @Test
    void createStateMachine_express_isDescribedAsExpressWithItsLogging() {
        String machine = express("runner", WAIT_FROM_INPUT, LogLevel.ERROR);

        DescribeStateMachineResponse described = sfn.describeStateMachine(b -> b.stateMachineArn(machine));
        assertThat(described.type()).isEqualTo(StateMachineType.EXPRESS);
        assertThat(described.loggingConfiguration().level()).isEqualTo(LogLevel.ERROR);
        assertThat(described.loggingConfiguration().includeExecutionData()).isFalse();
        assertThat(sfn.listStateMachines(b -> { }).stateMachines()).singleElement()
                .satisfies(sm -> assertThat(sm.type()).isEqualTo(StateMachineType.EXPRESS));
        assertThatThrownBy(() -> sfn.createStateMachine(b -> b.name("odd").definition(FAIL).roleArn(ROLE).type("QUICK")))
                .hasMessageContaining("[STANDARD, EXPRESS]");
    }

    @Test
    void expressDefinition_withRunAJobOrCallbackPattern_isRefused() {
        String sync = """
                {"StartAt":"Child","States":{"Child":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution.sync:2",
                 "Parameters":{"StateMachineArn":"arn:aws:states:us-east-1:123456789012:stateMachine:c"},"End":true}}}""";
        assertThatThrownBy(() -> express("nested", sync, LogLevel.OFF))
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("Run a Job (.sync)").hasMessageContaining("EXPRESS");
        String insideMap = """
                {"StartAt":"Each","States":{"Each":{"Type":"Map","End":true,"Iterator":{"StartAt":"Child","States":{
                 "Child":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution.sync",
                 "Parameters":{"StateMachineArn":"arn:aws:states:us-east-1:123456789012:stateMachine:c"},"End":true}}}}}}""";
        assertThatThrownBy(() -> express("nested", insideMap, LogLevel.OFF)).isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("Iterator");
        assertThat(sfn.createStateMachine(b -> b.name("standard").definition(sync).roleArn(ROLE)).stateMachineArn())
                .as("a Standard machine may wait for a child").endsWith(":standard");
    }

    @Test
    void startExecution_sameNameTwice_runsTwice_andTheApiRefusesWhatExpressDoesNotSupport() {
        String machine = express("runner", WAIT_FROM_INPUT, LogLevel.OFF);
        List<ExecutionDescription> told = new CopyOnWriteArrayList<>();
        engine.addListener(new ExecutionListener() {
            @Override
            public void started(ExecutionDescription execution) {
                told.add(execution);
            }

            @Override
            public void closed(ExecutionDescription execution) {
                told.add(execution);
            }
        });

        String first = sfn.startExecution(b -> b.stateMachineArn(machine).name("same").input("{\"seconds\":10}")).executionArn();
        String second = sfn.startExecution(b -> b.stateMachineArn(machine).name("same").input("{\"seconds\":10}")).executionArn();

        assertThat(first).startsWith("arn:aws:states:us-east-1:123456789012:express:runner:same:").isNotEqualTo(second);
        eventually(() -> engine.runningExpressExecutions().size() == 2);
        // Each run's five-minute limit and its Wait are on the timer before time moves (a Wait entered after
        // the move would count its 10 s from there).
        eventually(() -> timer.pending() == 4);
        assertThat(engine.openExecutions()).as("outside the open-execution quota").isZero();
        assertThatThrownBy(() -> sfn.describeExecution(b -> b.executionArn(first))).isInstanceOf(InvalidArnException.class)
                .hasMessageContaining("not supported by EXPRESS");
        assertThatThrownBy(() -> sfn.getExecutionHistory(b -> b.executionArn(first))).isInstanceOf(InvalidArnException.class);
        assertThatThrownBy(() -> sfn.stopExecution(b -> b.executionArn(first))).isInstanceOf(InvalidArnException.class);
        assertThatThrownBy(() -> sfn.listExecutions(b -> b.stateMachineArn(machine)))
                .isInstanceOf(StateMachineTypeNotSupportedException.class);

        timer.advance(Duration.ofSeconds(10));
        eventually(() -> engine.runningExpressExecutions().isEmpty());
        assertThat(told).as("no status change is published for an Express execution").isEmpty();
        assertThat(engine.billedTransitions()).as("Express executions are not billed by transition").isZero();
    }

    @Test
    void expressExecution_pastFiveMinutes_timesOut_andIsBilledForItsDuration() {
        String machine = express("runner", WAIT_FROM_INPUT, LogLevel.ERROR);
        sfn.startExecution(b -> b.stateMachineArn(machine).input("{\"seconds\":600}"));
        eventually(() -> timer.pending() > 1);

        timer.advance(Duration.ofMinutes(5).minusMillis(1));
        assertThat(engine.runningExpressExecutions()).hasSize(1);
        timer.advance(Duration.ofMillis(1));
        eventually(() -> engine.runningExpressExecutions().isEmpty());

        assertThat(engine.executionLog().latest()).singleElement().satisfies(line -> {
            JsonNode event = json(line);
            assertThat(event.get("type").asText()).isEqualTo("ExecutionTimedOut");
            assertThat(event.get("details").get("error").asText()).isEqualTo("States.Timeout");
        });
        assertThat(engine.expressRequests()).isEqualTo(1);
        assertThat(engine.expressBilledDuration()).isEqualTo(Duration.ofMinutes(5));
        assertThat(engine.expressGbSeconds()).isCloseTo(300 * 64 / 1024.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void billing_roundsEachExecutionUpToTheNext100Milliseconds() {
        String machine = express("runner", WAIT_FROM_INPUT, LogLevel.OFF);
        String until = express("until", """
                {"StartAt":"Hold","States":{"Hold":{"Type":"Wait","TimestampPath":"$.until","End":true}}}""", LogLevel.OFF);
        sfn.startExecution(b -> b.stateMachineArn(machine).input("{\"seconds\":0}"));
        eventually(() -> timer.pending() > 1);
        timer.runDue();
        eventually(() -> engine.expressBilledDuration().toMillis() > 0);
        timer.advance(Duration.ofMillis(30));
        sfn.startExecution(b -> b.stateMachineArn(until).input("{\"until\":\"2030-01-01T00:00:02Z\"}"));
        eventually(() -> timer.pending() > 1);
        timer.advance(Duration.ofSeconds(2));
        eventually(() -> engine.runningExpressExecutions().isEmpty());

        // One that takes no time bills one step; 1.97 s bills 2.0 s.
        assertThat(engine.expressBilledDuration()).isEqualTo(Duration.ofMillis(100 + 2_000));
        assertThat(engine.expressRequests()).isEqualTo(2);
        assertThat(engine.executionLog().lines()).as("logging OFF").isZero();
    }

    @Test
    void startSyncExecution_answersOnceTheExecutionHasClosed_withItsOutcomeAndBilling() throws Exception {
        // As AWS recorded it (LocalStack's test_express_sync): status, output or error and cause,
        // outputDetails either way, billingDetails.
        String machine = express("sync", WAIT_FROM_INPUT, LogLevel.OFF);
        var call = java.util.concurrent.CompletableFuture.supplyAsync(() -> sfn.startSyncExecution(
                b -> b.stateMachineArn(machine).name("s-1").input("{\"seconds\":2}")));
        eventually(() -> START.plusSeconds(2).equals(timer.nextWakeUp()));
        assertThat(call).isNotDone();
        timer.advance(Duration.ofSeconds(2));

        var succeeded = call.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(succeeded.status()).isEqualTo(software.amazon.awssdk.services.sfn.model.SyncExecutionStatus.SUCCEEDED);
        assertThat(succeeded.executionArn()).contains(":express:sync:s-1:");
        assertThat(succeeded.name()).isEqualTo("s-1");
        assertThat(succeeded.stateMachineArn()).isEqualTo(machine);
        assertThat(succeeded.input()).isEqualTo("{\"seconds\":2}");
        assertThat(succeeded.output()).isEqualTo("{\"waited\":2}");
        assertThat(succeeded.startDate()).isEqualTo(START);
        assertThat(succeeded.stopDate()).isEqualTo(START.plusSeconds(2));
        assertThat(succeeded.billingDetails().billedDurationInMilliseconds()).isEqualTo(2_000);
        assertThat(succeeded.billingDetails().billedMemoryUsedInMB()).isEqualTo(64);

        var failed = sfn.startSyncExecution(b -> b.stateMachineArn(express("boom", FAIL, LogLevel.OFF)));
        assertThat(failed.status()).isEqualTo(software.amazon.awssdk.services.sfn.model.SyncExecutionStatus.FAILED);
        assertThat(failed.error()).isEqualTo("Custom.Error");
        assertThat(failed.cause()).isEqualTo("it broke");
        assertThat(failed.output()).isNull();
        assertThat(failed.outputDetails().included()).isTrue();
        assertThat(failed.billingDetails().billedDurationInMilliseconds()).isEqualTo(100);
    }

    @Test
    void startSyncExecution_ofAStandardMachine_isRefused() {
        String standard = sfn.createStateMachine(b -> b.name("standard").definition(FAIL).roleArn(ROLE))
                .stateMachineArn();
        assertThatThrownBy(() -> sfn.startSyncExecution(b -> b.stateMachineArn(standard)))
                .isInstanceOf(StateMachineTypeNotSupportedException.class);
    }

    @Test
    void expressContextObject_hasNoRedriveOrRetryCount() throws Exception {
        // As AWS recorded it (LocalStack's test_query_runtime_memory): "State": {"Name", "EnteredTime"}.
        String machine = express("context", """
                {"StartAt":"Q","States":{"Q":{"Type":"Pass","Parameters":{"context.$":"$$"},"End":true}}}""",
                LogLevel.OFF);
        JsonNode context = MAPPER.readTree(sfn.startSyncExecution(b -> b.stateMachineArn(machine)).output())
                .get("context");
        assertThat(context.get("Execution").fieldNames()).toIterable()
                .containsExactlyInAnyOrder("Id", "Input", "Name", "RoleArn", "StartTime");
        assertThat(context.get("State").fieldNames()).toIterable().containsExactlyInAnyOrder("Name", "EnteredTime");
    }

    @Test
    void standardParent_syncOnAnExpressChild_waitsForItsOutput_andFailsWithItsCause() throws Exception {
        String child = express("child", WAIT_FROM_INPUT, LogLevel.ALL);
        String failing = express("failing", FAIL, LogLevel.ERROR);
        String parentDefinition = """
                {"StartAt":"Run","States":{"Run":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution.sync:2",
                 "Parameters":{"StateMachineArn.$":"$.child","Name.$":"$$.Execution.Name","Input":{"seconds":30}},
                 "OutputPath":"$.Output","End":true}}}""";
        String parent = sfn.createStateMachine(b -> b.name("parent").definition(parentDefinition).roleArn(ROLE)).stateMachineArn();

        String waiting = sfn.startExecution(b -> b.stateMachineArn(parent).name("p-1")
                .input("{\"child\":\"" + child + "\"}")).executionArn();
        // The child runs on the engine's threads: time may move once its Wait is on the timer, not before
        // (a Wait entered after the move would count its 30 s from there).
        eventually(() -> START.plusSeconds(30).equals(timer.nextWakeUp()));
        assertThat(engine.runningExpressExecutions()).singleElement().satisfies(run -> assertThat(run.name()).isEqualTo("p-1"));
        timer.advance(Duration.ofSeconds(29));
        assertThat(sfn.describeExecution(b -> b.executionArn(waiting)).status()).isEqualTo(ExecutionStatus.RUNNING);
        timer.advance(Duration.ofSeconds(1));
        eventually(() -> sfn.describeExecution(b -> b.executionArn(waiting)).status() == ExecutionStatus.SUCCEEDED);
        assertThat(sfn.describeExecution(b -> b.executionArn(waiting)).output()).isEqualTo("{\"waited\":30}");
        assertThat(engine.executionLog().latest()).extracting(ExecutionLog.Line::stateMachineArn).containsOnly(child);
        assertThat(engine.executionLog().latest()).extracting(line -> json(line).get("type").asText())
                .startsWith("ExecutionStarted").contains("WaitStateEntered").endsWith("ExecutionSucceeded");
        assertThat(engine.executionLog().latest()).as("no execution data").allSatisfy(line ->
                assertThat(json(line).get("details").has("input") || json(line).get("details").has("output")).isFalse());

        String failed = sfn.startExecution(b -> b.stateMachineArn(parent).name("p-2")
                .input("{\"child\":\"" + failing + "\"}")).executionArn();
        eventually(() -> sfn.describeExecution(b -> b.executionArn(failed)).status() == ExecutionStatus.FAILED);
        var description = sfn.describeExecution(b -> b.executionArn(failed));
        assertThat(description.error()).isEqualTo("States.TaskFailed");
        JsonNode cause = MAPPER.readTree(description.cause());
        assertThat(cause.get("Status").asText()).isEqualTo("FAILED");
        assertThat(cause.get("Error").asText()).isEqualTo("Custom.Error");
        assertThat(cause.get("Cause").asText()).isEqualTo("it broke");
    }

    private static JsonNode json(ExecutionLog.Line line) {
        try {
            return MAPPER.readTree(line.json());
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + line.json(), e);
        }
    }

    private static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.onSpinWait();
        }
    }
}
