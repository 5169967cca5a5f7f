package dev.punctual.local.stepfunctions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.TtlValue;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.names.ItemExecutionName;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.CreateStateMachineResponse;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.DescribeStateMachineResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionAlreadyExistsException;
import software.amazon.awssdk.services.sfn.model.ExecutionDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.ExecutionLimitExceededException;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.GetExecutionHistoryResponse;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.HistoryEventType;
import software.amazon.awssdk.services.sfn.model.InvalidArnException;
import software.amazon.awssdk.services.sfn.model.InvalidDefinitionException;
import software.amazon.awssdk.services.sfn.model.InvalidExecutionInputException;
import software.amazon.awssdk.services.sfn.model.InvalidNameException;
import software.amazon.awssdk.services.sfn.model.InvalidTokenException;
import software.amazon.awssdk.services.sfn.model.ListExecutionsResponse;
import software.amazon.awssdk.services.sfn.model.SfnException;
import software.amazon.awssdk.services.sfn.model.StartExecutionResponse;
import software.amazon.awssdk.services.sfn.model.StateMachineAlreadyExistsException;
import software.amazon.awssdk.services.sfn.model.StateMachineDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.StateMachineStatus;

/** The Step Functions API through the real SDK client, on the real interpreter driven by a manual clock. */
class StepFunctionsServerTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String WAIT_THEN_PASS = """
            {"StartAt":"Hold","States":{
              "Hold":{"Type":"Wait","Seconds":60,"Next":"Done"},
              "Done":{"Type":"Pass","Result":{"done":true},"End":true}}}""";
    private static final String FAIL = """
            {"StartAt":"Boom","States":{"Boom":{"Type":"Fail","Error":"Custom.Error","Cause":"it broke"}}}""";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<JsonNode> deletes = new CopyOnWriteArrayList<>();
    private ManualTimer timer;
    private StepFunctionsEngine local;
    private StepFunctionsServer server;
    private SfnClient sfn;

    @BeforeEach
    void start() {
        startEngine(1_000);
    }

    private void startEngine(int maxOpen) {
        timer = ManualTimer.startingAt(START);
        TaskResource deleteItem = new TaskResource() {
            @Override
            public boolean supports(String arn) {
                return arn.endsWith(":states:::dynamodb:deleteItem");
            }

            @Override
            public CompletionStage<JsonNode> invoke(String arn, JsonNode parameters, ContextObject context) {
                deletes.add(parameters);
                return CompletableFuture.completedFuture(JsonNodeFactory.instance.objectNode());
            }
        };
        local = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of(deleteItem))
                .timer(timer)
                .maxOpenExecutions(maxOpen)
                .build();
        server = StepFunctionsServer.start(local, new InetSocketAddress("127.0.0.1", 0));
        sfn = SfnClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(Apache5HttpClient.create())
                .build();
    }

    @AfterEach
    void stop() {
        sfn.close();
        server.close();
        local.close();
    }

    private String createMachine(String name, String definition) {
        return sfn.createStateMachine(b -> b.name(name).definition(definition).roleArn(ROLE)).stateMachineArn();
    }

    @Test
    void stateMachineLifecycle_createDescribeListUpdateDelete() {
        CreateStateMachineResponse created = sfn.createStateMachine(b -> b.name("orders").definition(WAIT_THEN_PASS)
                .roleArn(ROLE));
        assertThat(created.stateMachineArn()).isEqualTo("arn:aws:states:us-east-1:123456789012:stateMachine:orders");
        assertThat(created.creationDate()).isEqualTo(START);

        DescribeStateMachineResponse described = sfn.describeStateMachine(b -> b.stateMachineArn(created.stateMachineArn()));
        assertThat(described.name()).isEqualTo("orders");
        assertThat(described.definition()).isEqualTo(WAIT_THEN_PASS);
        assertThat(described.roleArn()).isEqualTo(ROLE);
        assertThat(described.typeAsString()).isEqualTo("STANDARD");
        assertThat(described.status()).isEqualTo(StateMachineStatus.ACTIVE);

        createMachine("billing", FAIL);
        assertThat(sfn.listStateMachines(b -> b.maxResults(1)).stateMachines()).extracting(s -> s.name())
                .containsExactly("billing");
        String token = sfn.listStateMachines(b -> b.maxResults(1)).nextToken();
        assertThat(sfn.listStateMachines(b -> b.maxResults(1).nextToken(token)).stateMachines())
                .extracting(s -> s.name()).containsExactly("orders");

        sfn.updateStateMachine(b -> b.stateMachineArn(created.stateMachineArn()).definition(FAIL));
        assertThat(sfn.describeStateMachine(b -> b.stateMachineArn(created.stateMachineArn())).definition())
                .isEqualTo(FAIL);

        sfn.deleteStateMachine(b -> b.stateMachineArn(created.stateMachineArn()));
        assertThatThrownBy(() -> sfn.describeStateMachine(b -> b.stateMachineArn(created.stateMachineArn())))
                .isInstanceOf(StateMachineDoesNotExistException.class);
    }

    @Test
    void createStateMachine_whenNameTakenWithOtherDefinition_failsButSameDefinitionIsIdempotent() {
        String arn = createMachine("orders", WAIT_THEN_PASS);
        assertThat(createMachine("orders", WAIT_THEN_PASS)).isEqualTo(arn);
        assertThatThrownBy(() -> createMachine("orders", FAIL)).isInstanceOf(StateMachineAlreadyExistsException.class);
    }

    @Test
    void createStateMachine_whenRequestInvalid_raisesTypedErrors() {
        assertThatThrownBy(() -> createMachine("bad", "{\"StartAt\":\"Nowhere\",\"States\":{}}"))
                .isInstanceOf(InvalidDefinitionException.class);
        assertThatThrownBy(() -> sfn.createStateMachine(b -> b.name("bad").definition(FAIL).roleArn("not-an-arn")))
                .isInstanceOf(InvalidArnException.class);
        assertThatThrownBy(() -> createMachine("bad name", FAIL)).isInstanceOf(InvalidNameException.class);
        assertThatThrownBy(() -> sfn.createStateMachine(b -> b.name("fast").definition(FAIL).roleArn(ROLE)
                .type("QUICK")))
                .isInstanceOf(SfnException.class)
                .satisfies(e -> assertThat(((SfnException) e).awsErrorDetails().errorCode())
                        .isEqualTo("ValidationException"))
                .hasMessageContaining("[STANDARD, EXPRESS]");
        assertThatThrownBy(() -> sfn.describeStateMachine(b -> b.stateMachineArn("arn:aws:states:us-east-1:1:nope")))
                .isInstanceOf(InvalidArnException.class);
        assertThatThrownBy(() -> sfn.describeStateMachine(b -> b.stateMachineArn(
                "arn:aws:states:us-east-1:123456789012:stateMachine:missing")))
                .isInstanceOf(StateMachineDoesNotExistException.class);
    }

    @Test
    void execution_waitsOnTheClockThenSucceeds_withAwsShapedHistory() {
        String machine = createMachine("orders", WAIT_THEN_PASS);
        StartExecutionResponse started = sfn.startExecution(b -> b.stateMachineArn(machine).name("o-1")
                .input("{\"id\":1}"));
        assertThat(started.executionArn()).isEqualTo("arn:aws:states:us-east-1:123456789012:execution:orders:o-1");
        assertThat(describe(started.executionArn()).status()).isEqualTo(ExecutionStatus.RUNNING);

        timer.advance(Duration.ofSeconds(59));
        assertThat(describe(started.executionArn()).status()).isEqualTo(ExecutionStatus.RUNNING);
        timer.advance(Duration.ofSeconds(1));

        DescribeExecutionResponse done = describe(started.executionArn());
        assertThat(done.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(done.startDate()).isEqualTo(START);
        assertThat(done.stopDate()).isEqualTo(START.plusSeconds(60));
        assertThat(done.input()).isEqualTo("{\"id\":1}");
        assertThat(done.output()).isEqualTo("{\"done\":true}");
        assertThat(done.inputDetails().included()).isTrue();

        List<HistoryEvent> events = sfn.getExecutionHistory(b -> b.executionArn(started.executionArn())).events();
        assertThat(events).extracting(HistoryEvent::type).containsExactly(HistoryEventType.EXECUTION_STARTED,
                HistoryEventType.WAIT_STATE_ENTERED, HistoryEventType.WAIT_STATE_EXITED,
                HistoryEventType.PASS_STATE_ENTERED, HistoryEventType.PASS_STATE_EXITED,
                HistoryEventType.EXECUTION_SUCCEEDED);
        assertThat(events).extracting(HistoryEvent::id).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(events).extracting(HistoryEvent::previousEventId).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(events.get(0).executionStartedEventDetails().input()).isEqualTo("{\"id\":1}");
        assertThat(events.get(0).executionStartedEventDetails().roleArn()).isEqualTo(ROLE);
        assertThat(events.get(0).executionStartedEventDetails().inputDetails().truncated()).isFalse();
        assertThat(events.get(1).stateEnteredEventDetails().name()).isEqualTo("Hold");
        assertThat(events.get(2).stateExitedEventDetails().name()).isEqualTo("Hold");
        assertThat(events.get(2).timestamp()).isEqualTo(START.plusSeconds(60));
        assertThat(events.get(5).executionSucceededEventDetails().output()).isEqualTo("{\"done\":true}");

        GetExecutionHistoryResponse reversedPage = sfn.getExecutionHistory(b -> b.executionArn(started.executionArn())
                .reverseOrder(true).maxResults(2).includeExecutionData(false));
        assertThat(reversedPage.events()).extracting(HistoryEvent::type)
                .containsExactly(HistoryEventType.EXECUTION_SUCCEEDED, HistoryEventType.PASS_STATE_EXITED);
        assertThat(reversedPage.events().get(0).executionSucceededEventDetails()).isNull();
        assertThat(sfn.getExecutionHistory(b -> b.executionArn(started.executionArn()).reverseOrder(true)
                .maxResults(2).nextToken(reversedPage.nextToken())).events()).extracting(HistoryEvent::id)
                .containsExactly(4L, 3L);
    }

    @Test
    void failedExecution_reportsErrorAndCause() {
        String machine = createMachine("broken", FAIL);
        String arn = sfn.startExecution(b -> b.stateMachineArn(machine)).executionArn();
        eventually(() -> describe(arn).status() == ExecutionStatus.FAILED);
        DescribeExecutionResponse failed = describe(arn);
        assertThat(failed.error()).isEqualTo("Custom.Error");
        assertThat(failed.cause()).isEqualTo("it broke");
        assertThat(failed.name()).hasSize(36);
        List<HistoryEvent> events = sfn.getExecutionHistory(b -> b.executionArn(arn)).events();
        assertThat(events.get(events.size() - 1).executionFailedEventDetails().error()).isEqualTo("Custom.Error");
    }

    @Test
    void startExecution_followsAwsIdempotencyRules() {
        String machine = createMachine("orders", WAIT_THEN_PASS);
        StartExecutionResponse first = sfn.startExecution(b -> b.stateMachineArn(machine).name("same").input("{\"a\":1}"));
        timer.advance(Duration.ofSeconds(5));
        StartExecutionResponse again = sfn.startExecution(b -> b.stateMachineArn(machine).name("same").input("{\"a\":1}"));
        assertThat(again.executionArn()).isEqualTo(first.executionArn());
        assertThat(again.startDate()).isEqualTo(first.startDate());

        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("same").input("{\"a\":2}")))
                .isInstanceOf(ExecutionAlreadyExistsException.class);

        timer.advance(Duration.ofSeconds(60));
        assertThat(describe(first.executionArn()).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("same").input("{\"a\":1}")))
                .isInstanceOf(ExecutionAlreadyExistsException.class);
    }

    @Test
    void startExecution_whenRequestInvalid_raisesTypedErrors() {
        String machine = createMachine("orders", WAIT_THEN_PASS);
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("has space")))
                .isInstanceOf(InvalidNameException.class);
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("a:b")))
                .isInstanceOf(InvalidNameException.class);
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("x".repeat(81))))
                .isInstanceOf(SfnException.class).hasMessageContaining("length");
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).input("{not json")))
                .isInstanceOf(InvalidExecutionInputException.class);
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine + "x")))
                .isInstanceOf(StateMachineDoesNotExistException.class);
        assertThatThrownBy(() -> describe(Arns.execution(machine, "nope")))
                .isInstanceOf(ExecutionDoesNotExistException.class);
        assertThatThrownBy(() -> sfn.listExecutions(b -> b.stateMachineArn(machine).nextToken("garbage")))
                .isInstanceOf(InvalidTokenException.class);
    }

    @Test
    void startExecution_beyondOpenExecutionLimit_raisesExecutionLimitExceeded() {
        stop();
        startEngine(2);
        String machine = createMachine("orders", WAIT_THEN_PASS);
        sfn.startExecution(b -> b.stateMachineArn(machine).name("a"));
        sfn.startExecution(b -> b.stateMachineArn(machine).name("b"));
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("c")))
                .isInstanceOf(ExecutionLimitExceededException.class);
        timer.advance(Duration.ofSeconds(60));
        assertThat(sfn.startExecution(b -> b.stateMachineArn(machine).name("c")).executionArn()).endsWith(":c");
    }

    @Test
    void stopExecution_abortsTheWaitForGood() {
        String machine = createMachine("orders", WAIT_THEN_PASS);
        String arn = sfn.startExecution(b -> b.stateMachineArn(machine).name("o-1")).executionArn();
        timer.advance(Duration.ofSeconds(10));
        Instant stopped = sfn.stopExecution(b -> b.executionArn(arn).error("Manual").cause("operator")).stopDate();
        assertThat(stopped).isEqualTo(START.plusSeconds(10));
        timer.advance(Duration.ofMinutes(5));

        DescribeExecutionResponse aborted = describe(arn);
        assertThat(aborted.status()).isEqualTo(ExecutionStatus.ABORTED);
        assertThat(aborted.error()).isEqualTo("Manual");
        assertThat(aborted.cause()).isEqualTo("operator");
        List<HistoryEvent> events = sfn.getExecutionHistory(b -> b.executionArn(arn)).events();
        assertThat(events).extracting(HistoryEvent::type).containsExactly(HistoryEventType.EXECUTION_STARTED,
                HistoryEventType.WAIT_STATE_ENTERED, HistoryEventType.EXECUTION_ABORTED);
        assertThat(events.get(2).executionAbortedEventDetails().cause()).isEqualTo("operator");

        assertThat(sfn.stopExecution(b -> b.executionArn(arn)).stopDate()).isEqualTo(stopped);
    }

    @Test
    void listExecutions_newestFirst_filteredAndPaginated() {
        String machine = createMachine("orders", WAIT_THEN_PASS);
        for (int i = 1; i <= 5; i++) {
            int n = i;
            sfn.startExecution(b -> b.stateMachineArn(machine).name("e" + n));
            timer.advance(Duration.ofSeconds(20));
        }
        // e1..e3 have waited their 60 s by now; e4 and e5 are still waiting.
        assertThat(names(sfn.listExecutions(b -> b.stateMachineArn(machine)))).containsExactly("e5", "e4", "e3",
                "e2", "e1");
        assertThat(names(sfn.listExecutions(b -> b.stateMachineArn(machine).statusFilter(ExecutionStatus.RUNNING))))
                .containsExactly("e5", "e4");
        ListExecutionsResponse page1 = sfn.listExecutions(b -> b.stateMachineArn(machine)
                .statusFilter(ExecutionStatus.SUCCEEDED).maxResults(2));
        assertThat(names(page1)).containsExactly("e3", "e2");
        ListExecutionsResponse page2 = sfn.listExecutions(b -> b.stateMachineArn(machine)
                .statusFilter(ExecutionStatus.SUCCEEDED).maxResults(2).nextToken(page1.nextToken()));
        assertThat(names(page2)).containsExactly("e1");
        assertThat(page2.nextToken()).isNull();
        assertThat(page1.executions().get(0).stopDate()).isNotNull();
    }

    @Test
    void expireItemWorkflow_continuesAsNewExecutionThenDeletesAtTheTtl() throws Exception {
        String machine = createMachine("expire-item", StateMachineDefinitions.expireItem("aws"));
        Instant expireAt = START.plus(Duration.ofDays(400));
        TtlValue ttl = ((TtlValue.Valid) TtlValue.check(AttributeText.n(Long.toString(expireAt.getEpochSecond())), "ttl", START))
                .ttl();
        ItemExecutionName chain = ItemExecutionName.first("sessions", ItemKey.of(Map.of("pk", AttributeText.s("u1"))), ttl);
        String input = MAPPER.writeValueAsString(MAPPER.createObjectNode()
                .put("table", "sessions")
                .<com.fasterxml.jackson.databind.node.ObjectNode>set("key", MAPPER.readTree("{\"pk\":{\"S\":\"u1\"}}"))
                .put("ttlAttribute", "ttl")
                .put("ttl", Long.toString(expireAt.getEpochSecond()))
                .put("expireAt", expireAt.toString())
                .put("horizonHops", 1)
                .put("chainName", chain.toString()));
        String first = sfn.startExecution(b -> b.stateMachineArn(machine).name(chain.toString()).input(input))
                .executionArn();

        timer.advance(Duration.ofDays(360));
        eventually(() -> describe(first).status() == ExecutionStatus.SUCCEEDED);
        // The successor's name as expire-item.asl.json renders it (States.Format) is the one the handler's Java
        // names it by (ItemExecutionName.successor), which the stale-execution stops look for: neither side
        // may change alone.
        String successorName = chain.successor(0).toString();
        assertThat(describe(first).output()).contains("ContinuedAsNew").contains("execution:expire-item:" + successorName);
        String successor = MAPPER.readTree(describe(first).output()).path("successor").asText();
        assertThat(successor).isEqualTo(Arns.execution(machine, successorName));
        assertThat(ItemExecutionName.parse(successor.substring(successor.lastIndexOf(':') + 1)))
                .as("the rendered name read back: the chain, its last hop").contains(chain.successor(0));
        assertThat(describe(successor).status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(deletes).isEmpty();

        timer.advanceTo(expireAt.minusSeconds(1));
        assertThat(deletes).isEmpty();
        timer.advanceTo(expireAt);
        eventually(() -> describe(successor).status() == ExecutionStatus.SUCCEEDED);
        assertThat(deletes).hasSize(1);
        assertThat(deletes.get(0).path("TableName").asText()).isEqualTo("sessions");
        assertThat(describe(successor).output()).contains("Expired");
        assertThat(sfn.getExecutionHistory(b -> b.executionArn(successor)).events()).extracting(HistoryEvent::type)
                .contains(HistoryEventType.TASK_SCHEDULED, HistoryEventType.TASK_SUCCEEDED);
        assertThat(sfn.getExecutionHistory(b -> b.executionArn(successor)).events().stream()
                .filter(e -> e.type() == HistoryEventType.TASK_SCHEDULED).findFirst().orElseThrow()
                .taskScheduledEventDetails().resource()).isEqualTo("deleteItem");
    }

    @Test
    void execution_runningLongerThanOneYear_timesOut() {
        String machine = createMachine("forever", """
                {"StartAt":"Hold","States":{"Hold":{"Type":"Wait","Seconds":40000000,"End":true}}}""");
        String arn = sfn.startExecution(b -> b.stateMachineArn(machine)).executionArn();
        timer.advance(Duration.ofDays(364));
        assertThat(describe(arn).status()).isEqualTo(ExecutionStatus.RUNNING);
        timer.advance(Duration.ofDays(1));
        DescribeExecutionResponse timedOut = describe(arn);
        assertThat(timedOut.status()).isEqualTo(ExecutionStatus.TIMED_OUT);
        assertThat(timedOut.error()).isEqualTo("States.Timeout");
        List<HistoryEvent> events = sfn.getExecutionHistory(b -> b.executionArn(arn)).events();
        assertThat(events.get(events.size() - 1).type()).isEqualTo(HistoryEventType.EXECUTION_TIMED_OUT);
        assertThat(events.get(events.size() - 1).executionTimedOutEventDetails().error()).isEqualTo("States.Timeout");
    }

    @Test
    void execution_pastItsTimeoutSeconds_timesOutThenWithNeitherErrorNorCause() {
        // As AWS recorded it (LocalStack's test_global_timeout): "status": "TIMED_OUT" and no error.
        String machine = createMachine("deadline", """
                {"TimeoutSeconds":5,"StartAt":"Hold","States":{"Hold":{"Type":"Wait","Seconds":60,"End":true}}}""");
        String arn = sfn.startExecution(b -> b.stateMachineArn(machine)).executionArn();
        // The run is launched on the engine's own thread: the clock moves once it waits.
        eventually(() -> sfn.getExecutionHistory(b -> b.executionArn(arn)).events().size() == 2);
        timer.advance(Duration.ofSeconds(5));
        eventually(() -> describe(arn).status() == ExecutionStatus.TIMED_OUT);

        DescribeExecutionResponse timedOut = describe(arn);
        // At its TimeoutSeconds, though its long Wait had parked it until the minute's end.
        assertThat(timedOut.stopDate()).isEqualTo(START.plusSeconds(5));
        assertThat(timedOut.error()).isNull();
        assertThat(timedOut.cause()).isNull();
        List<HistoryEvent> events = sfn.getExecutionHistory(b -> b.executionArn(arn)).events();
        HistoryEvent last = events.get(events.size() - 1);
        assertThat(last.type()).isEqualTo(HistoryEventType.EXECUTION_TIMED_OUT);
        assertThat(last.executionTimedOutEventDetails()).isNull();
    }

    @Test
    void syncTask_recordsStartExecutionsAnswerAsTaskSubmitted_beforeTheChildsEnd() throws Exception {
        // As AWS recorded it (LocalStack's test_start_execution_sync): TaskStarted, TaskSubmitted
        // {"ExecutionArn", "SdkHttpMetadata", "SdkResponseMetadata", "StartDate"}, TaskSucceeded.
        String child = createMachine("child", """
                {"StartAt":"P","States":{"P":{"Type":"Pass","Result":{"Arg1":"argument1"},"End":true}}}""");
        String parent = createMachine("parent", """
                {"StartAt":"Run","States":{"Run":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution.sync",
                 "Parameters":{"StateMachineArn.$":"$.child","Name":"TestStartTarget"},"End":true}}}""");
        String arn = sfn.startExecution(b -> b.stateMachineArn(parent).input("{\"child\":\"" + child + "\"}"))
                .executionArn();
        eventually(() -> describe(arn).status() == ExecutionStatus.SUCCEEDED);

        List<HistoryEvent> events = sfn.getExecutionHistory(b -> b.executionArn(arn)).events();
        assertThat(events).extracting(HistoryEvent::type).containsSubsequence(HistoryEventType.TASK_STARTED,
                HistoryEventType.TASK_SUBMITTED, HistoryEventType.TASK_SUCCEEDED);
        HistoryEvent submitted = events.stream().filter(e -> e.type() == HistoryEventType.TASK_SUBMITTED)
                .findFirst().orElseThrow();
        assertThat(submitted.taskSubmittedEventDetails().resource()).isEqualTo("startExecution.sync");
        assertThat(submitted.taskSubmittedEventDetails().resourceType()).isEqualTo("states");
        JsonNode answer = new ObjectMapper().readTree(submitted.taskSubmittedEventDetails().output());
        String childArn = answer.get("ExecutionArn").asText();
        assertThat(childArn).endsWith(":execution:child:TestStartTarget");
        long startMillis = answer.get("StartDate").asLong();
        assertThat(Instant.ofEpochMilli(startMillis)).isEqualTo(describe(childArn).startDate());
        // The length of the answer StartExecution gives over this API for that start.
        String body = "{\"executionArn\":\"" + childArn + "\",\"startDate\":"
                + java.math.BigDecimal.valueOf(startMillis, 3) + "}";
        JsonNode headers = answer.path("SdkHttpMetadata").path("HttpHeaders");
        assertThat(headers.get("Content-Length").asText()).isEqualTo(Integer.toString(body.length()));
        assertThat(headers.get("Content-Type").asText()).isEqualTo("application/x-amz-json-1.0");
        assertThat(headers.get("x-amzn-RequestId").asText())
                .isEqualTo(answer.path("SdkResponseMetadata").get("RequestId").asText());
        assertThat(answer.path("SdkHttpMetadata").path("AllHttpHeaders").get("Content-Length").get(0).asText())
                .isEqualTo(headers.get("Content-Length").asText());
        assertThat(answer.path("SdkHttpMetadata").get("HttpStatusCode").asInt()).isEqualTo(200);
    }

    @Test
    void deleteStateMachine_withRunningExecution_isDeletingUntilItsNextTransition() {
        String machine = createMachine("orders", WAIT_THEN_PASS);
        String arn = sfn.startExecution(b -> b.stateMachineArn(machine)).executionArn();
        sfn.deleteStateMachine(b -> b.stateMachineArn(machine));
        assertThat(sfn.describeStateMachine(b -> b.stateMachineArn(machine)).status())
                .isEqualTo(StateMachineStatus.DELETING);
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine)))
                .isInstanceOf(SfnException.class).hasMessageContaining("being deleted");
        DescribeExecutionResponse stillRunning = describe(arn);
        assertThat(stillRunning.status()).isEqualTo(ExecutionStatus.RUNNING);

        timer.advance(Duration.ofSeconds(60));
        assertThatThrownBy(() -> sfn.describeStateMachine(b -> b.stateMachineArn(machine)))
                .isInstanceOf(StateMachineDoesNotExistException.class);
    }

    @Test
    void malformedRequests_get400sAndTheServerKeepsServing() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> malformed = post(http, "AWSStepFunctions.ListStateMachines", "{not json");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.body()).contains("SerializationException");

        HttpResponse<String> unknown = post(http, "AWSStepFunctions.LaunchRocket", "{}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("UnknownOperationException");

        HttpResponse<String> missing = post(http, "AWSStepFunctions.DescribeExecution", "{}");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("ValidationException").contains("executionArn");

        HttpResponse<String> wrongType = post(http, "AWSStepFunctions.ListStateMachines", "{\"maxResults\":\"ten\"}");
        assertThat(wrongType.statusCode()).isEqualTo(400);
        assertThat(wrongType.body()).contains("maxResults");

        HttpResponse<String> huge = post(http, "AWSStepFunctions.ListStateMachines",
                "{\"nextToken\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}");
        assertThat(huge.statusCode()).isEqualTo(400);
        assertThat(huge.body()).contains("larger than");

        String machine = createMachine("orders", WAIT_THEN_PASS);
        String bigInput = "{\"blob\":\"" + "y".repeat(262_144) + "\"}";
        HttpResponse<String> bigStart = post(http, "AWSStepFunctions.StartExecution", MAPPER.writeValueAsString(
                MAPPER.createObjectNode().put("stateMachineArn", machine).put("input", bigInput)));
        assertThat(bigStart.statusCode()).isEqualTo(400);
        assertThat(bigStart.body()).contains("ValidationException").contains("262144");

        assertThat(sfn.listStateMachines().stateMachines()).hasSize(1);
    }

    private HttpResponse<String> post(HttpClient http, String target, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/"))
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", target)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private DescribeExecutionResponse describe(String arn) {
        return sfn.describeExecution(b -> b.executionArn(arn));
    }

    private static List<String> names(ListExecutionsResponse response) {
        return response.executions().stream().map(e -> e.name()).collect(Collectors.toList());
    }

    /** Waits, briefly and boundedly, for work the engine hands to its own threads (no clock involved). */
    private static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Condition not met within 5 s");
            }
            Thread.onSpinWait();
        }
    }
}
