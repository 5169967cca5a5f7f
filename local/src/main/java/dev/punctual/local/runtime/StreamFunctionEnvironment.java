package dev.punctual.local.runtime;

import dev.punctual.local.modes.LocalModes;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * The environment every runtime gives the stream function for one table, whatever it runs on, and the
 * one {@code punctual dlq redrive} gives the function it hands a dead letter to: the variables the CDK
 * construct sets in Lambda, with the endpoints pointed at the runtime's (its own engine, or the service it
 * is attached to), and the variables of the table's mode. Expiry events add their own.
 */
public final class StreamFunctionEnvironment {

    private StreamFunctionEnvironment() {
    }

    /**
     * @param mode the table's expiry mode, whose own variables (windowed: the schedule index) are added
     * @param stateMachineArn the state machine the handler starts: {@code mode}'s
     * @param cancelStale whether stale executions are stopped; only a mode that can stop them is told to
     *     (windowed cannot, a stale index entry being harmless)
     */
    public static Map<String, String> of(ExpiryMode mode, String stateMachineArn, WatchedTable table,
            URI stepFunctionsEndpoint, URI dynamoDbEndpoint, boolean cancelStale) {
        Map<String, String> environment = new HashMap<>(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn,
                StreamWiring.ENV_TTL_ATTRIBUTE, table.ttlAttribute(),
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, stepFunctionsEndpoint.toString(),
                StreamWiring.ENV_CANCEL_STALE, Boolean.toString(cancelStale && mode.stopsStaleExecutions()),
                StreamWiring.ENV_MODE, mode.label()));
        environment.putAll(LocalModes.of(mode).handlerEnvironment(dynamoDbEndpoint));
        return Map.copyOf(environment);
    }
}
