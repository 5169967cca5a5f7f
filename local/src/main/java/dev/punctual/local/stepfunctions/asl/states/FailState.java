package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.AslError;
import dev.punctual.local.stepfunctions.asl.ErrorNames;
import dev.punctual.local.stepfunctions.asl.paths.PayloadTemplate;

/**
 * {@code Fail}: fails its state machine with {@code Error}/{@code Cause} or their path variants, each
 * a reference path or an intrinsic function, compiled as a one-field payload template.
 */
public final class FailState extends State {

    private final String error;
    private final PayloadTemplate errorPath;
    private final String cause;
    private final PayloadTemplate causePath;

    public FailState(StateFields fields, String error, PayloadTemplate errorPath, String cause, PayloadTemplate causePath) {
        super(fields);
        this.error = error;
        this.errorPath = errorPath;
        this.cause = cause;
        this.causePath = causePath;
    }

    @Override
    public String type() {
        return "Fail";
    }

    @Override
    protected boolean producesResult() {
        return false;
    }

    @Override
    protected boolean exits() {
        return false;
    }

    @Override
    protected void act(Activation activation) {
        activation.fail(new AslError(resolve(activation, error, errorPath, "ErrorPath"),
                resolve(activation, cause, causePath, "CausePath")));
    }

    private String resolve(Activation activation, String literal, PayloadTemplate expression, String field) {
        if (expression == null) {
            return literal;
        }
        JsonNode value = expression.evaluate(activation.input(), activation.context()).get(field);
        if (value == null || !value.isTextual()) {
            throw new AslError(ErrorNames.RUNTIME, "An error occurred while executing the state '" + name()
                    + "'. The " + field + " did not resolve to a string");
        }
        return value.textValue();
    }
}
