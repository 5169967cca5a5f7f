package dev.punctual.local.runtime;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.functions.BackfillFunction;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stream.LocalLambdaContext;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The backfill workflow on the local runtime, as the construct deploys it in AWS: the progress table
 * ({@link BackfillProgressTable#LOCAL_TABLE_NAME}), the state machine
 * {@value LocalDefaults#BACKFILL_STATE_MACHINE_NAME} running the same {@code backfill.asl.json}, and the
 * real {@link BackfillFunction} in-process, configured through the same environment variables, in the
 * runtime's mode. {@code aws stepfunctions start-execution --state-machine-arn
 * arn:aws:states:us-east-1:123456789012:stateMachine:punctual-backfill --input '{"table":"T"}'} starts it.
 */
final class LocalBackfill implements AutoCloseable {

    /** Converts payloads between the engine's JSON and the function's Map, as Lambda's runtime does. */
    private static final ObjectMapper PAYLOADS = new ObjectMapper();

    private final Lifetimes owned;

    private LocalBackfill(Lifetimes owned, DynamoDbClient dynamoDb, URI dynamoDbEndpoint, ExpiryMode mode,
            String scheduledStateMachineArn, LambdaFunctions functions, FunctionHost host) {
        this.owned = owned;
        createProgressTable(dynamoDb);
        host.stepFunctions().deploy(LocalDefaults.BACKFILL_STATE_MACHINE_NAME,
                StateMachineDefinitions.backfill("aws", LocalDefaults.backfillFunctionArn()));
        Map<String, String> environment = environment(mode, scheduledStateMachineArn, host.stepFunctions().endpoint(),
                dynamoDbEndpoint);
        BackfillFunction.Collaborators.Builder parts = BackfillFunction.Collaborators.builder(environment)
                .dynamoDb(host.dynamoDb())
                .clock(host.clock())
                .sleeper(host.sleeper())
                .backoff(new ThrottleBackoff(host.clock(), host.sleeper()::sleep, ThreadLocalRandom.current()));
        host.stepFunctions().inProcessExecutions(parts.settings(), environment)
                .ifPresent(executions -> parts.executions(owned.own(executions)));
        BackfillFunction function = owned.own(new BackfillFunction(parts.build()));
        functions.register(LocalDefaults.BACKFILL_FUNCTION_NAME, payload -> host.invoke(BackfillWorkflow.FUNCTION_MEMORY_MB,
                () -> invoke(function, payload, host.clock())));
    }

    /**
     * Creates the progress table (unless a data directory holds it), deploys the backfill state machine, and
     * registers the backfill function in {@code functions}, where the engine's Lambda Task states find it.
     *
     * @param dynamoDb the runtime's client, to create the progress table with
     * @param dynamoDbEndpoint DynamoDB Local's endpoint, for the function's environment
     * @param scheduledStateMachineArn the state machine the mode schedules with (expire-item, or expire-bucket)
     */
    static LocalBackfill start(DynamoDbClient dynamoDb, URI dynamoDbEndpoint, ExpiryMode mode, String scheduledStateMachineArn,
            LambdaFunctions functions, FunctionHost host) {
        return Lifetimes.start("the backfill function", owned -> new LocalBackfill(owned, dynamoDb, dynamoDbEndpoint, mode,
                scheduledStateMachineArn, functions, host));
    }

    /** One invocation of the backfill function, its payload converted as Lambda's runtime converts it. */
    private static JsonNode invoke(BackfillFunction function, JsonNode payload, Clock clock) {
        Map<String, Object> input = PAYLOADS.convertValue(payload, new TypeReference<Map<String, Object>>() { });
        return PAYLOADS.valueToTree(function.handleRequest(input,
                new LocalLambdaContext(LocalDefaults.BACKFILL_FUNCTION_NAME, LocalAccount.REGION, clock)));
    }

    /** The function's environment, as the construct sets it in Lambda, with the runtime's endpoints and mode. */
    private static Map<String, String> environment(ExpiryMode mode, String scheduledStateMachineArn, URI stepFunctionsEndpoint,
            URI dynamoDbEndpoint) {
        Map<String, String> environment = new HashMap<>(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, scheduledStateMachineArn,
                StreamWiring.ENV_MODE, mode.label(),
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, stepFunctionsEndpoint.toString(),
                StreamWiring.ENV_DYNAMODB_ENDPOINT, dynamoDbEndpoint.toString(),
                BackfillWorkflow.ENV_PROGRESS_TABLE, BackfillProgressTable.LOCAL_TABLE_NAME));
        if (mode == ExpiryMode.WINDOWED) {
            environment.put(StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME);
        }
        return Map.copyOf(environment);
    }

    /** The progress table as the construct creates it in AWS (on-demand); kept when a data directory holds it. */
    private static void createProgressTable(DynamoDbClient dynamoDb) {
        try {
            dynamoDb.createTable(r -> r.tableName(BackfillProgressTable.LOCAL_TABLE_NAME)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            AttributeDefinition.builder().attributeName(BackfillProgressTable.PARTITION_KEY)
                                    .attributeType(ScalarAttributeType.S).build(),
                            AttributeDefinition.builder().attributeName(BackfillProgressTable.SORT_KEY)
                                    .attributeType(ScalarAttributeType.S).build())
                    .keySchema(
                            KeySchemaElement.builder().attributeName(BackfillProgressTable.PARTITION_KEY).keyType(KeyType.HASH).build(),
                            KeySchemaElement.builder().attributeName(BackfillProgressTable.SORT_KEY).keyType(KeyType.RANGE).build()));
        } catch (ResourceInUseException exists) {
            // A data directory from an earlier run already holds it, with the runs it recorded.
        }
    }

    /** Closes the backfill function, then its Step Functions adapter. */
    @Override
    public void close() {
        owned.close();
    }
}
