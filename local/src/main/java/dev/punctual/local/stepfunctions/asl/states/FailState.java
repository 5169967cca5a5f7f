package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.FailStateError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import java.util.Set;

/**
 * {@code Fail}: fails its state machine with {@code Error}/{@code Cause} or their path variants. AWS
 * takes a reference path or an intrinsic function returning a string in {@code ErrorPath} and
 * {@code CausePath} (state-fail.html), the same expressions as a payload template's {@code .$} fields,
 * so each is compiled as one ({@link PayloadTemplate#expression}), its errors naming the field as written
 * ({@code 'ErrorPath'}, as AWS names it).
 */
public final class FailState extends State {

    public static final StateType TYPE = new StateType("Fail", Set.of(), Set.of("Error", "ErrorPath", "Cause", "CausePath"),
            FailState::read);

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
        return TYPE.name();
    }

    private static FailState read(StateFields fields, DefinitionNode node) {
        node.exclusive("Error", "ErrorPath");
        node.exclusive("Cause", "CausePath");
        return new FailState(fields, node.optionalString("Error"), pathOrIntrinsic(node, "ErrorPath"),
                node.optionalString("Cause"), pathOrIntrinsic(node, "CausePath"));
    }

    private static PayloadTemplate pathOrIntrinsic(DefinitionNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw node.error(field, "Expected a reference path or an intrinsic function");
        }
        return node.expression(field, value.textValue());
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
    protected void act(Attempt attempt) {
        attempt.fail(new FailStateError(resolve(attempt, error, errorPath, "ErrorPath"),
                resolve(attempt, cause, causePath, "CausePath")));
    }

    private String resolve(Attempt attempt, String literal, PayloadTemplate expression, String field) {
        if (expression == null) {
            return literal;
        }
        JsonNode value = expression.evaluate(attempt.input(), attempt.context());
        if (value == null || !value.isTextual()) {
            throw new StatesRuntimeError("The " + field + " did not resolve to a string");
        }
        return value.textValue();
    }
}
