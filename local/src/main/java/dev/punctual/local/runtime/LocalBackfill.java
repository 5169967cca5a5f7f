package dev.punctual.local.runtime;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.functions.BackfillFunction;
import dev.punctual.functions.SfnExecutions;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stream.LocalLambdaContext;
import dev.punctual.local.time.TimerSleeper;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.BinaryOperator;
import software.amazon.awssdk.http.SdkHttpClient;
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
public final class LocalBackfill implements AutoCloseable {

    /** Converts payloads between the engine's JSON and the function's Map, as Lambda's runtime does. */
    private static final ObjectMapper PAYLOADS = new ObjectMapper();

    private final BackfillFunction function;
    private final SfnExecutions executions;

    private LocalBackfill(BackfillFunction function, SfnExecutions executions) {
        this.function = function;
        this.executions = executions;
    }

    /**
     * Deploys the backfill on {@code runtime} (called while the runtime starts, once its engine, endpoints
     * and the mode's state machine exist).
     *
     * @param deploy creates or updates a state machine from its name and definition, returning its ARN
     * @param functions where the engine finds in-process Lambda functions
     * @param dynamoDb the runtime's metered client for Punctual's own DynamoDB calls
     * @param transport the in-process route to the engine, or {@code null} to go over HTTP
     * @param billInvocation bills one invocation's wall time at a memory size
     */
    public static LocalBackfill deploy(LocalRuntime runtime, BinaryOperator<String> deploy, LambdaFunctions functions,
            DynamoDbClient dynamoDb, SdkHttpClient transport, BiConsumer<Integer, Duration> billInvocation) {
        createProgressTable(runtime.dynamoDb());
        deploy.apply(LocalDefaults.BACKFILL_STATE_MACHINE_NAME,
                StateMachineDefinitions.backfill("aws", LocalDefaults.backfillFunctionArn()));
        Map<String, String> environment = environment(runtime);
        Clock clock = runtime.timer().clock();
        TimerSleeper sleeper = new TimerSleeper(runtime.timer());
        BackfillFunction.Collaborators.Builder parts = BackfillFunction.Collaborators.builder(environment)
                .dynamoDb(dynamoDb)
                .clock(clock)
                .sleeper(sleeper)
                .backoff(new ThrottleBackoff(clock, sleeper::sleep, ThreadLocalRandom.current()));
        SfnExecutions executions = transport == null ? null : SfnExecutions.create(parts.settings(), environment, transport);
        if (executions != null) {
            parts.executions(executions);
        }
        BackfillFunction function = new BackfillFunction(parts.build());
        functions.register(LocalDefaults.BACKFILL_FUNCTION_NAME, payload -> {
            long started = System.nanoTime();
            try {
                Map<String, Object> input = PAYLOADS.convertValue(payload, new TypeReference<Map<String, Object>>() { });
                return PAYLOADS.valueToTree(function.handleRequest(input,
                        new LocalLambdaContext(LocalDefaults.BACKFILL_FUNCTION_NAME, LocalAccount.REGION, clock)));
            } finally {
                billInvocation.accept(BackfillWorkflow.FUNCTION_MEMORY_MB, Duration.ofNanos(System.nanoTime() - started));
            }
        });
        return new LocalBackfill(function, executions);
    }

    /** The function's environment, as the construct sets it in Lambda, with the runtime's endpoints and mode. */
    static Map<String, String> environment(LocalRuntime runtime) {
        Map<String, String> environment = new HashMap<>(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, runtime.scheduledStateMachineArn(),
                StreamWiring.ENV_MODE, runtime.options().mode().label(),
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, runtime.stepFunctionsEndpoint().toString(),
                StreamWiring.ENV_DYNAMODB_ENDPOINT, runtime.dynamoDbEndpoint().toString(),
                BackfillWorkflow.ENV_PROGRESS_TABLE, BackfillProgressTable.LOCAL_TABLE_NAME));
        if (runtime.options().mode() == ExpiryMode.WINDOWED) {
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

    @Override
    public void close() throws Exception {
        function.close();
        if (executions != null) {
            executions.close();
        }
    }
}
