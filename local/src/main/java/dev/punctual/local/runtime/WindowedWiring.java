package dev.punctual.local.runtime;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.functions.BucketFunction;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stream.LocalLambdaContext;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * What windowed mode adds to the runtime, as one unit: the schedule index table, the expire-bucket
 * state machine, and the in-process bucket function its Task states invoke, each as the construct
 * creates it in AWS. Per-item mode wires none of it.
 */
final class WindowedWiring implements AutoCloseable {

    /** Converts payloads between the engine's JSON and the bucket function's Map, as Lambda's runtime does. */
    private static final ObjectMapper PAYLOADS = new ObjectMapper();

    private final Lifetimes owned;
    private final String stateMachineArn;
    private final URI dynamoDbEndpoint;

    private WindowedWiring(Lifetimes owned, DynamoDbClient dynamoDb, URI dynamoDbEndpoint, LambdaFunctions functions,
            FunctionHost host) {
        this.owned = owned;
        this.dynamoDbEndpoint = dynamoDbEndpoint;
        createScheduleIndex(dynamoDb);
        stateMachineArn = host.stepFunctions().deploy(LocalDefaults.BUCKET_STATE_MACHINE_NAME,
                StateMachineDefinitions.expireBucket("aws", LocalDefaults.bucketFunctionArn()));
        Map<String, String> environment = bucketFunctionEnvironment(host.stepFunctions().endpoint());
        BucketFunction.Collaborators.Builder parts = BucketFunction.Collaborators.builder(environment)
                .dynamoDb(host.dynamoDb())
                .clock(host.clock())
                .sleeper(host.sleeper());
        host.stepFunctions().inProcessExecutions(parts.settings(), environment)
                .ifPresent(executions -> parts.executions(owned.own(executions)));
        BucketFunction bucketFunction = owned.own(new BucketFunction(parts.build()));
        functions.register(LocalDefaults.BUCKET_FUNCTION_NAME, payload -> host.invoke(StreamWiring.BUCKET_FUNCTION_MEMORY_MB,
                () -> invoke(bucketFunction, payload, host.clock())));
    }

    /** One invocation of the bucket function, its payload converted as Lambda's runtime converts it. */
    private static JsonNode invoke(BucketFunction function, JsonNode payload, Clock clock) {
        Map<String, Object> input = PAYLOADS.convertValue(payload, new TypeReference<Map<String, Object>>() { });
        return PAYLOADS.valueToTree(function.handleRequest(input,
                new LocalLambdaContext(LocalDefaults.BUCKET_FUNCTION_NAME, LocalAccount.REGION, clock)));
    }

    /**
     * Creates the index (unless a data directory holds it), deploys expire-bucket, and registers the
     * bucket function in {@code functions}, where the engine's Lambda Task states find it.
     *
     * @param dynamoDb the runtime's client, to create the index with
     * @param dynamoDbEndpoint DynamoDB Local's endpoint, for the functions' environments
     */
    static WindowedWiring start(DynamoDbClient dynamoDb, URI dynamoDbEndpoint, LambdaFunctions functions, FunctionHost host) {
        return Lifetimes.start("windowed mode's bucket function",
                owned -> new WindowedWiring(owned, dynamoDb, dynamoDbEndpoint, functions, host));
    }

    /** ARN of the expire-bucket state machine, which the stream handler starts executions of. */
    String stateMachineArn() {
        return stateMachineArn;
    }

    /** What the stream handler's environment adds in windowed mode: the index and where to reach it. */
    Map<String, String> handlerEnvironment() {
        return Map.of(
                StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME,
                StreamWiring.ENV_DYNAMODB_ENDPOINT, dynamoDbEndpoint.toString());
    }

    /**
     * The bucket function's environment, as the CDK construct sets it in Lambda, but with as many
     * deletes in flight as the state machine's task threads: DynamoDB Local runs a table's deletes one
     * at a time, so more threads only queue on its lock.
     */
    private Map<String, String> bucketFunctionEnvironment(URI stepFunctionsEndpoint) {
        return Map.of(
                StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(LocalStepFunctions.TASK_THREADS),
                StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn,
                StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME,
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, stepFunctionsEndpoint.toString(),
                StreamWiring.ENV_DYNAMODB_ENDPOINT, dynamoDbEndpoint.toString());
    }

    /** The schedule index as the construct creates it in AWS (on-demand, TTL on its expiresAt). */
    private static void createScheduleIndex(DynamoDbClient dynamoDb) {
        try {
            dynamoDb.createTable(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            AttributeDefinition.builder().attributeName(ScheduleIndexTable.PARTITION_KEY)
                                    .attributeType(ScalarAttributeType.S).build(),
                            AttributeDefinition.builder().attributeName(ScheduleIndexTable.SORT_KEY)
                                    .attributeType(ScalarAttributeType.S).build())
                    .keySchema(
                            KeySchemaElement.builder().attributeName(ScheduleIndexTable.PARTITION_KEY).keyType(KeyType.HASH).build(),
                            KeySchemaElement.builder().attributeName(ScheduleIndexTable.SORT_KEY).keyType(KeyType.RANGE).build()));
            dynamoDb.updateTimeToLive(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME)
                    .timeToLiveSpecification(t -> t.enabled(true).attributeName(ScheduleIndexTable.EXPIRES_AT)));
        } catch (ResourceInUseException exists) {
            // A data directory from an earlier run already holds the index.
        }
    }

    /** Closes the bucket function, then its Step Functions adapter. */
    @Override
    public void close() {
        owned.close();
    }
}
