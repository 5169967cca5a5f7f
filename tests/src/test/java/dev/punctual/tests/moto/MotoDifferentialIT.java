package dev.punctual.tests.moto;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.mocking.MockConfiguration;
import dev.punctual.local.stepfunctions.tasks.DynamoDbTaskResource;
import dev.punctual.local.time.ClockTimer;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.StateMachineType;

/**
 * The four shipped state machines on two interpreters, from the same inputs: our engine and moto's
 * (LocalStack's), each behind its own Step Functions API, read back through the same SDK client. Their
 * Lambda tasks answer from one mock configuration (AWS Step Functions Local's format,
 * {@code moto/differential-mock-config.json}), which both read; the DynamoDB deletes, the
 * {@code startExecution.sync:2} child and the backfill's successor start run for real on both, against
 * moto's DynamoDB and each side's own Step Functions, except where a case needs a failure, which the mock
 * configuration then gives both.
 *
 * <p>For each case the two must agree on final status, output, error, cause and the order of the states
 * entered. Where they do not, the AWS documentation decided which side is right; each difference in
 * {@link #MOTO_DEVIATIONS} is moto's (docs/engine.md lists it with its reference), and the test checks it
 * still shows, so that a moto that mends it is noticed.
 */
class MotoDifferentialIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String TABLE = "differential-items";
    private static final String FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:punctual-mocked";
    private static final String RUNNER = "punctual-run-bucket";
    /** The longest a case runs: the failing bucket's eight retries back off up to 30 s each (full jitter). */
    private static final Duration CLOSED = Duration.ofSeconds(240);
    /** How long a case moto never ends is watched before it is stopped. */
    private static final Duration NEVER_ENDS = Duration.ofSeconds(20);

    /** Cases where moto departs from AWS, with what it does instead (docs/engine.md, "And against moto's"). */
    private static final Map<String, String> MOTO_DEVIATIONS = Map.of(
            "runner-steps-with-a-retry",
            "moto answers a mocked Task by its retry count, not its invocation: every visit of Step gets response 0,"
                    + " so the loop never ends",
            "throttled",
            "a mocked Throw on a DynamoDB Task loses its Error: DynamoDB.AmazonDynamoDBException, no cause, so no"
                    + " Retry matches it",
            "timed-out",
            "a mocked Throw whose Error begins with 'States.' (States.Timeout) is refused as a custom error name",
            "runner-fails",
            "a mocked Throw of States.TaskFailed is refused as a custom error name: States.Runtime",
            "runner-done",
            "startExecution.sync:2 on a child ARN naming a test case fails with States.Runtime 'StateMachineArn'");

    private static MotoServer moto;
    private static StepFunctionsEngine engine;
    private static StepFunctionsServer server;
    private static ExecutorService timerActions;
    private static DynamoDbClient dynamoDb;
    private static SfnClient ours;
    private static SfnClient theirs;

    @BeforeAll
    static void start() throws IOException {
        Path config = Path.of("target", "moto", "differential-mock-config.json");
        Files.createDirectories(config.getParent());
        try (InputStream in = Objects.requireNonNull(MotoDifferentialIT.class.getResourceAsStream(
                "/moto/differential-mock-config.json"))) {
            Files.write(config, in.readAllBytes());
        }
        moto = MotoServer.start(Path.of("target", "moto", "moto-differential.log"),
                List.of("--mock-config", config.toAbsolutePath().toString()));
        dynamoDb = LocalClients.dynamoDb(moto.endpoint());
        theirs = LocalClients.stepFunctions(moto.endpoint());
        timerActions = Executors.newSingleThreadExecutor();
        ClockTimer timer = new ClockTimer(Clock.systemUTC(), timerActions, "differential-timer");
        engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Executors.newCachedThreadPool()))
                .taskResources(List.of(new DynamoDbTaskResource(dynamoDb), new NoFunctions()))
                .timer(timer)
                .mockConfiguration(MockConfiguration.read(config))
                .build();
        server = StepFunctionsServer.start(engine, new InetSocketAddress("127.0.0.1", 0));
        ours = LocalClients.stepFunctions(java.net.URI.create("http://127.0.0.1:" + server.port()));

        dynamoDb.createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH)));
        for (SfnClient sfn : List.of(ours, theirs)) {
            String runner = create(sfn, RUNNER, StateMachineDefinitions.runBucket("aws", FUNCTION), StateMachineType.EXPRESS);
            create(sfn, "punctual-expire-item", StateMachineDefinitions.expireItem("aws"), StateMachineType.STANDARD);
            create(sfn, "punctual-expire-bucket", StateMachineDefinitions.expireBucket("aws", runner),
                    StateMachineType.STANDARD);
            // The runner's test case travels in its ARN, the way a parent names a child's test case.
            create(sfn, "punctual-expire-bucket-done", StateMachineDefinitions.expireBucket("aws",
                    runner + "#DoneInOneStep"), StateMachineType.STANDARD);
            create(sfn, "punctual-expire-bucket-steps", StateMachineDefinitions.expireBucket("aws",
                    runner + "#StepsWithARetry"), StateMachineType.STANDARD);
            create(sfn, "punctual-backfill", StateMachineDefinitions.backfill("aws", FUNCTION), StateMachineType.STANDARD);
        }
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {ours, theirs, dynamoDb, server, engine, moto}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException("Could not close " + closeable, e);
                }
            }
        }
        if (timerActions != null) {
            timerActions.shutdownNow();
        }
    }

    private static String create(SfnClient sfn, String name, String definition, StateMachineType type) {
        return sfn.createStateMachine(b -> b.name(name).definition(definition).roleArn(ROLE).type(type)).stateMachineArn();
    }

    @Test
    void expireItem_expired() {
        compare(Case.of("expired", "punctual-expire-item", null, itemInput("expired", "1700000000"))
                .before(() -> putItem("expired", "1700000000")));
    }

    @Test
    void expireItem_superseded() {
        compare(Case.of("superseded", "punctual-expire-item", null, itemInput("superseded", "1700000000"))
                .before(() -> putItem("superseded", "1700000999")));
    }

    @Test
    void expireItem_throttledDeleteRetried() {
        compare(Case.of("throttled", "punctual-expire-item", "ThrottledDeleteRetried", itemInput("throttled", "1700000000")));
    }

    @Test
    void expireItem_taskTimeoutRetried() {
        compare(Case.of("timed-out", "punctual-expire-item", "DeleteTimedOutRetried", itemInput("timed-out", "1700000000")));
    }

    @Test
    void expireBucket_runnerDoneInOneStep_outputThroughSync2() {
        compare(Case.of("runner-done", "punctual-expire-bucket-done", null, bucketInput()));
    }

    @Test
    void expireBucket_runnerFailsEveryTime_bucketFails() {
        compare(Case.of("runner-fails", "punctual-expire-bucket", "RunnerAlwaysFails", bucketInput()));
    }

    @Test
    void expireBucket_runnerStepsWithAFailingStepRetried() {
        compare(Case.of("runner-steps-with-a-retry", "punctual-expire-bucket-steps", null, bucketInput()));
    }

    @Test
    void backfill_severalPagesThenTheResumedRunCompletes() {
        // The resumed run first: the paging run's successor then finds its name taken, as a successor that
        // already started, and ends the way a duplicate start does (SuccessorAlreadyStarted).
        compare(Case.of("backfill-resumed", "punctual-backfill", "Resumed", "{\"table\":\"orders\"}"));
        compare(Case.of("backfill-pages", "punctual-backfill", "SeveralPages", "{\"table\":\"orders\"}"));
    }

    // ------------------------------------------------------------------------------------------ the run

    private static void compare(Case c) {
        Outcome mine = run(ours, c);
        Outcome moto = run(theirs, c);
        System.out.printf("differential %s%n  ours: %s%n  moto: %s%n", c.name, mine, moto);
        String deviation = MOTO_DEVIATIONS.get(c.name);
        if (deviation == null) {
            assertThat(moto).as("moto agrees with our engine on " + c.name).isEqualTo(mine);
        } else {
            assertThat(moto).as("moto still departs from AWS on " + c.name + ": " + deviation).isNotEqualTo(mine);
        }
    }

    private static Outcome run(SfnClient sfn, Case c) {
        c.before.run();
        String machine = sfn.listStateMachines(b -> { }).stateMachines().stream()
                .filter(m -> m.name().equals(c.machine)).findFirst().orElseThrow().stateMachineArn();
        String execution = sfn.startExecution(b -> b.stateMachineArn(c.testCase == null ? machine : machine + "#" + c.testCase)
                .name(c.name).input(c.input)).executionArn();
        Duration limit = MOTO_DEVIATIONS.containsKey(c.name) ? NEVER_ENDS : CLOSED;
        try {
            Await.until(() -> c.name + " closes", limit, Duration.ofMillis(100),
                    () -> sfn.describeExecution(b -> b.executionArn(execution)).status() != ExecutionStatus.RUNNING);
        } catch (AssertionError stillRunning) {
            if (!MOTO_DEVIATIONS.containsKey(c.name)) {
                throw stillRunning;
            }
            sfn.stopExecution(b -> b.executionArn(execution));
        }
        DescribeExecutionResponse described = sfn.describeExecution(b -> b.executionArn(execution));
        List<String> entered = new ArrayList<>();
        String token = null;
        do {
            String page = token;
            var history = sfn.getExecutionHistory(b -> b.executionArn(execution).nextToken(page).maxResults(1000));
            for (HistoryEvent event : history.events()) {
                if (event.stateEnteredEventDetails() != null) {
                    entered.add(event.stateEnteredEventDetails().name());
                }
            }
            token = history.nextToken();
        } while (token != null);
        return new Outcome(described.status(), normalized(described.output()), described.error(), described.cause(), entered);
    }

    /** The output with its one instant ({@code deletedAt}, the state's entered time) reduced to its presence. */
    private static String normalized(String output) {
        if (output == null) {
            return null;
        }
        try {
            JsonNode node = MAPPER.readTree(output);
            if (node instanceof ObjectNode object && object.has("deletedAt")) {
                object.put("deletedAt", "<entered time>");
            }
            return MAPPER.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String itemInput(String id, String ttl) {
        return "{\"table\":\"" + TABLE + "\",\"key\":{\"id\":{\"S\":\"" + id + "\"}},\"ttlAttribute\":\"expiresAt\","
                + "\"ttl\":\"" + ttl + "\",\"expireAt\":\"2023-11-14T22:13:20Z\",\"horizonHops\":0,\"chainName\":\"" + id + "\"}";
    }

    private static String bucketInput() {
        return "{\"wakeAt\":\"2020-01-01T00:00:00Z\",\"table\":\"orders\",\"bucket\":\"m-29000000\"}";
    }

    private static void putItem(String id, String ttl) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put("id", AttributeValue.fromS(id));
        item.put("expiresAt", AttributeValue.fromN(ttl));
        dynamoDb.putItem(b -> b.tableName(TABLE).item(item));
    }

    /** One case: the same state machine, test case and input on both sides, after the same setup. */
    private record Case(String name, String machine, String testCase, String input, Runnable before) {
        static Case of(String name, String machine, String testCase, String input) {
            return new Case(name, machine, testCase, input, () -> { });
        }

        Case before(Runnable setup) {
            return new Case(name, machine, testCase, input, setup);
        }
    }

    /** What is compared. */
    private record Outcome(ExecutionStatus status, String output, String error, String cause, List<String> statesEntered) {
    }

    /** Lambda here is only ever mocked: a call that reaches it fails, as a function that does not exist does. */
    private static final class NoFunctions implements TaskResource {
        @Override
        public boolean supports(String resourceArn) {
            return resourceArn.endsWith(":lambda:invoke");
        }

        @Override
        public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
            return CompletableFuture.failedFuture(new TaskError("Lambda.ResourceNotFoundException",
                    "No function is deployed here; the test case should have mocked this state"));
        }
    }
}
