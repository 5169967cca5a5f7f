package dev.punctual.local.runtime;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.functions.ExpirySettings;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.modes.LocalMode;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.stepfunctions.executions.ErrorCode;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stepfunctions.executions.Page;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stepfunctions.executions.ExecutionLogging;
import dev.punctual.local.stepfunctions.executions.WorkflowType;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stream.LocalLambdaContext;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * What a mode wires itself into the runtime with ({@link LocalMode.Context}): the runtime's parts as they
 * stand once the engine runs. What the mode starts, the runtime owns and closes.
 */
final class ModeContext implements LocalMode.Context {

    /** How the construct has every state machine log: ERROR only, without execution data. */
    private static final ExecutionLogging LOGGED_ERRORS = new ExecutionLogging("ERROR", false);

    /** Converts payloads between the engine's JSON and a function's Map, as Lambda's runtime does. */
    private static final ObjectMapper PAYLOADS = new ObjectMapper();

    private final DynamoDbClient dynamoDb;
    private final URI dynamoDbEndpoint;
    private final LambdaFunctions functions;
    private final FunctionHost host;
    private final int bucketDeleteConcurrency;
    private final Lifetimes owned;
    private final Timer timer;
    private final RetentionSettings retention;
    private final DynamoDbClient housekeepingDynamoDb;

    /**
     * @param dynamoDb the runtime's client, for the mode's tables
     * @param functions where the engine's Lambda Task states find in-process functions
     * @param bucketDeleteConcurrency the runtime's {@link LocalRuntime.Options#bucketDeleteConcurrency()}
     * @param owned what the runtime closes, the latest first
     * @param housekeepingDynamoDb Punctual's in-process client, neither metered nor faulty
     */
    ModeContext(DynamoDbClient dynamoDb, URI dynamoDbEndpoint, LambdaFunctions functions, FunctionHost host,
            int bucketDeleteConcurrency, Lifetimes owned, Timer timer, RetentionSettings retention,
            DynamoDbClient housekeepingDynamoDb) {
        this.dynamoDb = dynamoDb;
        this.dynamoDbEndpoint = dynamoDbEndpoint;
        this.functions = functions;
        this.host = host;
        this.bucketDeleteConcurrency = bucketDeleteConcurrency;
        this.owned = owned;
        this.timer = timer;
        this.retention = retention;
        this.housekeepingDynamoDb = housekeepingDynamoDb;
    }

    @Override
    public String expireItemArn() {
        return host.stepFunctions().expireItemArn();
    }

    @Override
    public String deploy(String name, String definition) {
        return host.stepFunctions().deploy(name, definition);
    }

    @Override
    public String deployExpress(String name, String definition) {
        return host.stepFunctions().deploy(name, definition, WorkflowType.EXPRESS, LOGGED_ERRORS);
    }

    @Override
    public String functionArn(String name) {
        return LocalDefaults.functionArn(name);
    }

    @Override
    public void function(String name, int memoryMb, RequestHandler<Map<String, Object>, Map<String, Object>> handler) {
        functions.register(name, payload -> host.invoke(memoryMb, () -> invoke(name, memoryMb, handler, payload)));
    }

    /** One invocation, its payload converted as Lambda's runtime converts it. */
    private JsonNode invoke(String name, int memoryMb, RequestHandler<Map<String, Object>, Map<String, Object>> handler,
                            JsonNode payload) {
        Map<String, Object> input = PAYLOADS.convertValue(payload, new TypeReference<Map<String, Object>>() { });
        return PAYLOADS.valueToTree(handler.handleRequest(input, new LocalLambdaContext(name, memoryMb, LocalAccount.REGION, host.clock())));
    }

    @Override
    public DynamoDbClient dynamoDb() {
        return dynamoDb;
    }

    @Override
    public boolean createTable(String name, String partitionKey, String sortKey) {
        try {
            dynamoDb.createTable(r -> r.tableName(name)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            AttributeDefinition.builder().attributeName(partitionKey).attributeType(ScalarAttributeType.S).build(),
                            AttributeDefinition.builder().attributeName(sortKey).attributeType(ScalarAttributeType.S).build())
                    .keySchema(
                            KeySchemaElement.builder().attributeName(partitionKey).keyType(KeyType.HASH).build(),
                            KeySchemaElement.builder().attributeName(sortKey).keyType(KeyType.RANGE).build()));
            return true;
        } catch (ResourceInUseException exists) {
            return false;
        }
    }

    @Override
    public FunctionParts functionParts(ExpirySettings settings, String caller) {
        FunctionParts.Builder parts = FunctionParts.builder(settings)
                .dynamoDb(host.dynamoDbFor(caller))
                .clock(host.clock())
                .sleeper(host.sleeper());
        host.stepFunctions().inProcessTransport().ifPresent(parts::stepFunctionsTransport);
        return parts.build();
    }

    @Override
    public void eventRule(String name, String pattern, String function) {
        host.eventRules().add(name, pattern, target(name, function));
    }

    @Override
    public void scheduleRule(String name, Duration rate, String function) {
        host.eventRules().addSchedule(name, rate, LocalAccount.REGION, LocalAccount.ACCOUNT_ID, target(name, function));
    }

    /**
     * {@code function} as a rule's target: invoked asynchronously, billed, its payload converted, and failing
     * as {@code --lambda-fault} says at the call site {@code <rule>.Invoke}. The bucket function is the only
     * function a rule targets, so a timeout ends at its timeout.
     */
    private Consumer<ObjectNode> target(String rule, String function) {
        Function<JsonNode, JsonNode> invoke = functions.find(function).orElseThrow(() -> new IllegalArgumentException(
                "rule " + rule + " targets function " + function + ", which is not registered"));
        Function<JsonNode, JsonNode> faulty = host.faults().lambdaTarget(rule, invoke, StreamWiring.BUCKET_FUNCTION_TIMEOUT);
        return faulty::apply;
    }

    @Override
    public URI stepFunctionsEndpoint() {
        return host.stepFunctions().endpoint();
    }

    @Override
    public URI dynamoDbEndpoint() {
        return dynamoDbEndpoint;
    }

    @Override
    public <T extends AutoCloseable> T register(T closeable) {
        return owned.own(closeable);
    }

    @Override
    public int bucketDeleteConcurrency() {
        return bucketDeleteConcurrency;
    }

    @Override
    public Timer timer() {
        return timer;
    }

    @Override
    public Retention retention(Retained kind) {
        return retention.of(kind);
    }

    @Override
    public DynamoDbClient housekeepingDynamoDb() {
        return housekeepingDynamoDb;
    }

    @Override
    public ExecutorService ownThread(String name) {
        return owned.ownThreads(1, name);
    }

    @Override
    public List<ExecutionSummary> executions(String stateMachineArn, ExecutionStatus status) {
        List<ExecutionSummary> all = new ArrayList<>();
        String next = null;
        do {
            Page<ExecutionSummary> page = host.stepFunctions().engine().listExecutions(stateMachineArn, status, 1000, next);
            all.addAll(page.items());
            next = page.nextToken();
        } while (next != null);
        return all;
    }

    @Override
    public Optional<ExecutionStatus> executionStatus(String executionArn) {
        try {
            return Optional.of(host.stepFunctions().engine().describeExecution(executionArn).status());
        } catch (StepFunctionsException e) {
            if (e.code() == ErrorCode.EXECUTION_DOES_NOT_EXIST) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
