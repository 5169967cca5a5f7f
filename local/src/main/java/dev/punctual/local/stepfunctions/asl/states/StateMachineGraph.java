package dev.punctual.local.stepfunctions.asl.states;

import java.util.Map;

/**
 * A state machine or a nested one (Map iterator, Parallel branch): its states by name and where it
 * starts.
 *
 * @param timeoutSeconds the top-level {@code TimeoutSeconds}, 0 when absent or nested
 */
public record StateMachineGraph(String startAt, Map<String, State> states, long timeoutSeconds) {

    public State state(String name) {
        State state = states.get(name);
        if (state == null) {
            throw new IllegalStateException("No state '" + name + "'; the parser should have refused this definition");
        }
        return state;
    }
}
