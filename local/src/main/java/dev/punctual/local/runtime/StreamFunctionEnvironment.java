package dev.punctual.local.runtime;

import dev.punctual.local.stream.WatchedTable;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.util.Map;

/**
 * The environment every runtime gives the stream function for one table, whatever it runs on: the
 * variables the CDK construct sets in Lambda, with the Step Functions endpoint pointed at the runtime's
 * (its own engine, or the service it is attached to). A mode and expiry events add their own.
 */
final class StreamFunctionEnvironment {

    private StreamFunctionEnvironment() {
    }

    /**
     * @param cancelStale whether stale executions are stopped; only a mode that can stop them is told to
     *     (windowed cannot, a stale index entry being harmless)
     */
    static Map<String, String> of(String stateMachineArn, WatchedTable table, URI stepFunctionsEndpoint,
            boolean cancelStale, ExpiryMode mode) {
        return Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn,
                StreamWiring.ENV_TTL_ATTRIBUTE, table.ttlAttribute(),
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, stepFunctionsEndpoint.toString(),
                StreamWiring.ENV_CANCEL_STALE, Boolean.toString(cancelStale && mode.stopsStaleExecutions()),
                StreamWiring.ENV_MODE, mode.label());
    }
}
