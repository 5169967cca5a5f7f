package dev.punctual.local.stepfunctions.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.faults.FaultCounts;
import dev.punctual.local.faults.Faults;
import dev.punctual.local.faults.FaultyDynamoDb;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.ParsedDefinition;
import dev.punctual.local.stepfunctions.asl.errors.StatesTaskFailedError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.RunObserver;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The real {@code expire-item.asl.json} on the interpreter, deleting from DynamoDB Local (in-process,
 * over loopback HTTP) on a manual clock.
 */
class ExpireItemWorkflowTest {

    private static final String TABLE = "items";
    private static final Instant START = Instant.parse("2024-01-01T00:00:00Z");
    private static final Instant EXPIRE_AT = Instant.parse("2024-01-01T00:00:30Z");
    private static final String TTL = "1704067230";

    private static LoopbackDynamoDbLocal dynamoDbLocal;
    private static DynamoDbClient dynamoDb;

    private ManualTimer timer;
    private Faults faults;
    private Interpreter interpreter;
    private ParsedDefinition definition;

    @BeforeAll
    static void startDynamoDb() throws Exception {
        dynamoDbLocal = new LoopbackDynamoDbLocal();
        dynamoDb = dynamoDbLocal.client();
        dynamoDb.createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build()));
    }

    @AfterAll
    static void stopDynamoDb() throws Exception {
        dynamoDbLocal.close();
    }

    @BeforeEach
    void setUp() {
        timer = ManualTimer.startingAt(START);
        faults = Faults.dynamoDb(new FaultCounts());
        interpreter = new Interpreter(timer, List.of(new DynamoDbTaskResource(new FaultyDynamoDb(dynamoDb, faults, "state-machine")),
                new NoStartExecution()),
                Runnable::run, new Random(3), "us-east-1");
        definition = interpreter.parse(StateMachineDefinitions.expireItem("aws"));
        dynamoDb.putItem(b -> b.tableName(TABLE).item(Map.of("pk", s("a"), "expiresAt", n(TTL), "data", s("x"))));
    }

    @Test
    void expireItem_whenTtlReached_deletesAtExpireAtAndNotBefore() {
        Run run = start();
        timer.advanceTo(EXPIRE_AT.minusMillis(1));
        assertThat(run.outcome.get()).isNull();
        assertThat(itemExists()).isTrue();

        timer.advanceTo(EXPIRE_AT);

        assertThat(run.outcome.get().status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(run.outcome.get().output()).isEqualTo(Json.parse(
                "{\"outcome\":\"Expired\",\"deletedAt\":\"2024-01-01T00:00:30.000Z\"}"));
        assertThat(itemExists()).isFalse();
        assertThat(run.checkpoints).extracting(Checkpoint::stateName)
                .containsExactly("BeyondHorizon", "WaitUntilExpiry", "WaitUntilExpiry", "DeleteIfUnchanged", "Expired");
        assertThat(run.checkpoints.get(2).wakeAt()).isEqualTo(EXPIRE_AT);
    }

    @Test
    void expireItem_whenTtlChanged_isSupersededAndKeepsItem() {
        Run run = start();
        dynamoDb.updateItem(b -> b.tableName(TABLE).key(Map.of("pk", s("a")))
                .updateExpression("SET expiresAt = :t").expressionAttributeValues(Map.of(":t", n("1704067999"))));

        timer.advanceTo(EXPIRE_AT);

        assertThat(run.outcome.get().status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(run.outcome.get().output()).isEqualTo(Json.parse("{\"outcome\":\"Superseded\"}"));
        assertThat(itemExists()).isTrue();
        assertThat(run.types()).contains("TaskFailed");
        ObjectNode failed = run.details("TaskFailed");
        assertThat(failed.get("error").asText()).isEqualTo("DynamoDB.ConditionalCheckFailedException");
        assertThat(failed.get("resourceType").asText()).isEqualTo("dynamodb");
        assertThat(failed.get("resource").asText()).isEqualTo("deleteItem");
    }

    @Test
    void expireItem_whenThrottledWithinRetries_stillDeletes() {
        faults.failNext(3, "ProvisionedThroughputExceededException");
        Run run = start();

        timer.advanceTo(EXPIRE_AT.plus(Duration.ofMinutes(5)));

        assertThat(run.outcome.get().status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(run.outcome.get().output().get("outcome").asText()).isEqualTo("Expired");
        assertThat(faults.injected()).isEqualTo(3);
        assertThat(run.types().stream().filter("TaskFailed"::equals)).hasSize(3);
        assertThat(itemExists()).isFalse();
    }

    @Test
    void expireItem_whenThrottledBeyondRetries_failsWithCauseAndKeepsItem() {
        faults.failNext(1_000, "ThrottlingException");
        Run run = start();

        timer.advanceTo(EXPIRE_AT.plus(Duration.ofHours(1)));

        RunOutcome outcome = run.outcome.get();
        assertThat(outcome.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(outcome.error()).isEqualTo("DynamoDB.ThrottlingException");
        assertThat(outcome.cause()).contains("Rate of requests exceeds the allowed throughput");
        assertThat(faults.injected()).isEqualTo(9);
        assertThat(itemExists()).isTrue();
    }

    private Run start() {
        ObjectNode input = Json.MAPPER.createObjectNode();
        input.put(ExpiryWorkflow.TABLE, TABLE);
        input.set(ExpiryWorkflow.KEY, Json.parse("{\"pk\":{\"S\":\"a\"}}"));
        input.put(ExpiryWorkflow.TTL_ATTRIBUTE, "expiresAt");
        input.put(ExpiryWorkflow.TTL, TTL);
        input.put(ExpiryWorkflow.EXPIRE_AT, EXPIRE_AT.toString());
        input.put(ExpiryWorkflow.HORIZON_HOPS, 0);
        input.put(ExpiryWorkflow.CHAIN_NAME, "items-a");
        Run run = new Run();
        interpreter.start(definition, new ContextObject("arn:aws:states:us-east-1:000000000000:execution:expire-item:e1",
                "e1", START, "arn:aws:iam::000000000000:role/r", "arn:aws:states:us-east-1:000000000000:stateMachine:expire-item",
                "expire-item"), input, run);
        return run;
    }

    private boolean itemExists() {
        return dynamoDb.getItem(b -> b.tableName(TABLE).key(Map.of("pk", s("a"))).consistentRead(true)).hasItem();
    }

    private static AttributeValue s(String value) {
        return AttributeValue.builder().s(value).build();
    }

    private static AttributeValue n(String value) {
        return AttributeValue.builder().n(value).build();
    }

    /** The definition names startExecution; these tests never reach it. */
    private static final class NoStartExecution implements TaskResource {
        @Override
        public boolean supports(String resourceArn) {
            return resourceArn.endsWith(":states:::states:startExecution");
        }

        @Override
        public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
            return CompletableFuture.failedFuture(new StatesTaskFailedError("not in this test"));
        }
    }

    private static final class Run implements RunObserver {
        final AtomicReference<RunOutcome> outcome = new AtomicReference<>();
        final List<Checkpoint> checkpoints = new CopyOnWriteArrayList<>();
        final List<Map.Entry<String, ObjectNode>> events = new CopyOnWriteArrayList<>();

        @Override
        public long onEvent(String type, ObjectNode details, Instant timestamp) {
            events.add(Map.entry(type, details));
            return events.size() + 1;
        }

        @Override
        public void onCheckpoint(Checkpoint checkpoint) {
            checkpoints.add(checkpoint);
        }

        @Override
        public void onCompleted(RunOutcome result) {
            outcome.set(result);
        }

        List<String> types() {
            return events.stream().map(Map.Entry::getKey).toList();
        }

        ObjectNode details(String type) {
            return events.stream().filter(e -> e.getKey().equals(type)).findFirst().orElseThrow().getValue();
        }
    }
}
