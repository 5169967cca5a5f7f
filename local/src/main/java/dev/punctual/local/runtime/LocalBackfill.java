package dev.punctual.local.runtime;

import dev.punctual.functions.BackfillFunction;
import dev.punctual.functions.ExpirySettings;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.modes.LocalMode;
import dev.punctual.local.modes.LocalModes;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.util.HashMap;
import java.util.Map;

/**
 * The backfill workflow on the local runtime, as the construct deploys it in AWS: the progress table
 * ({@link BackfillProgressTable#LOCAL_TABLE_NAME}), the state machine
 * {@value LocalDefaults#BACKFILL_STATE_MACHINE_NAME} running the same {@code backfill.asl.json}, and the
 * real {@link BackfillFunction} in-process, configured through the same environment variables and
 * scheduling into the machine of the runtime's mode, with what that mode tells its stream handler.
 * {@code aws stepfunctions start-execution --state-machine-arn
 * arn:aws:states:us-east-1:123456789012:stateMachine:punctual-backfill --input '{"table":"T"}'} starts it.
 *
 * <p>A part that sets itself up with what the runtime offers a mode ({@link LocalMode.Context}): its
 * state machine deployed, its function served, billed and closed with the runtime.
 */
final class LocalBackfill {

    /** The backfill function's DynamoDB call sites are named after this in fault injection. */
    static final String FUNCTION_CALLER = "backfill-function";

    private LocalBackfill() {
    }

    /**
     * Creates the progress table (unless a data directory holds it), deploys the backfill state machine,
     * and serves the backfill function, which schedules the way {@code wired} does.
     *
     * @param mode the runtime's mode, as the function's environment names it
     * @param wired that mode as the runtime wired it: the machine it schedules into, what its handler is told
     */
    static void wire(LocalMode.Context context, ExpiryMode mode, LocalMode.Wired wired) {
        // As the construct creates it in AWS; a data directory from an earlier run keeps the runs it recorded.
        context.createTable(BackfillProgressTable.LOCAL_TABLE_NAME, BackfillProgressTable.PARTITION_KEY,
                BackfillProgressTable.SORT_KEY);
        context.deploy(LocalDefaults.BACKFILL_STATE_MACHINE_NAME,
                StateMachineDefinitions.backfill(LocalAccount.PARTITION, context.functionArn(LocalDefaults.BACKFILL_FUNCTION_NAME)));
        BackfillFunction function = context.register(new BackfillFunction(
                context.functionParts(ExpirySettings.forBackfillFunction(environment(context, mode, wired)), FUNCTION_CALLER)));
        context.function(LocalDefaults.BACKFILL_FUNCTION_NAME, BackfillWorkflow.FUNCTION_MEMORY_MB, function);
    }

    /** The function's environment, as the construct sets it in Lambda, with the runtime's endpoints. */
    private static Map<String, String> environment(LocalMode.Context context, ExpiryMode mode, LocalMode.Wired wired) {
        Map<String, String> environment = new HashMap<>(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, wired.stateMachineArn(),
                StreamWiring.ENV_MODE, mode.label(),
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, context.stepFunctionsEndpoint().toString(),
                StreamWiring.ENV_DYNAMODB_ENDPOINT, context.dynamoDbEndpoint().toString(),
                BackfillWorkflow.ENV_PROGRESS_TABLE, BackfillProgressTable.LOCAL_TABLE_NAME));
        environment.putAll(LocalModes.of(mode).handlerEnvironment(context.dynamoDbEndpoint()));
        return Map.copyOf(environment);
    }
}
