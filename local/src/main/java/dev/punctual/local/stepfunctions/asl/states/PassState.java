package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code Pass}: its result is {@code Result} when given, else its effective input. */
public final class PassState extends State {

    private final JsonNode result;

    public PassState(StateFields fields, JsonNode result) {
        super(fields);
        this.result = result;
    }

    @Override
    public String type() {
        return "Pass";
    }

    @Override
    protected boolean producesResult() {
        return true;
    }

    @Override
    protected void act(Activation activation) {
        activation.complete(result != null ? result.deepCopy() : activation.input());
    }
}
