package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;

/** {@code Pass}: its result is {@code Result} when given, else its effective input. */
public final class PassState extends State {

    public static final StateType TYPE = new StateType("Pass",
            StateType.common(StateFields.TRANSITION, StateFields.PATHS, Set.of("Parameters", "ResultPath")),
            Set.of("Result"), (fields, node) -> new PassState(fields, node.get("Result")));

    private final JsonNode result;

    public PassState(StateFields fields, JsonNode result) {
        super(fields);
        this.result = result;
    }

    @Override
    public String type() {
        return TYPE.name();
    }

    @Override
    protected boolean producesResult() {
        return true;
    }

    @Override
    protected void act(Attempt attempt) {
        attempt.complete(result != null ? result.deepCopy() : attempt.input());
    }
}
