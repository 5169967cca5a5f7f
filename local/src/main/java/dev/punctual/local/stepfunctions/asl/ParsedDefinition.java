package dev.punctual.local.stepfunctions.asl;

import dev.punctual.local.stepfunctions.asl.states.StateMachineGraph;

/** A definition that parsed and validated: its text as given, and the graph only the interpreter reads. */
public final class ParsedDefinition {

    private final String json;
    private final StateMachineGraph graph;

    ParsedDefinition(String json, StateMachineGraph graph) {
        this.json = json;
        this.graph = graph;
    }

    /** The definition text as given. */
    public String json() {
        return json;
    }

    /** The top-level {@code TimeoutSeconds}: when the interpreter times a run out; 0 when there is none. */
    public long timeoutSeconds() {
        return graph.timeoutSeconds();
    }

    StateMachineGraph graph() {
        return graph;
    }
}
