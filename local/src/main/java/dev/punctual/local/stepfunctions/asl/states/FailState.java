package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.AslError;
import dev.punctual.local.stepfunctions.asl.ErrorNames;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.util.Set;

/** {@code Fail}: fails its state machine with {@code Error}/{@code Cause} or their path variants. */
public final class FailState extends State {

    public static final StateType TYPE = new StateType("Fail", Set.of(), Set.of("Error", "ErrorPath", "Cause", "CausePath"),
            FailState::read);

    private final String error;
    private final JsonPaths.Path errorPath;
    private final String cause;
    private final JsonPaths.Path causePath;

    public FailState(StateFields fields, String error, JsonPaths.Path errorPath, String cause, JsonPaths.Path causePath) {
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
        return new FailState(fields, node.optionalString("Error"), node.optionalPath("ErrorPath"),
                node.optionalString("Cause"), node.optionalPath("CausePath"));
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

    private String resolve(Activation activation, String literal, JsonPaths.Path path, String field) {
        if (path == null) {
            return literal;
        }
        JsonNode value = path.find(activation.input(), activation.context()).orElse(null);
        if (value == null || !value.isTextual()) {
            throw new AslError(ErrorNames.RUNTIME, "An error occurred while executing the state '" + name()
                    + "'. The " + field + " '" + path.text() + "' did not resolve to a string");
        }
        return value.textValue();
    }
}
