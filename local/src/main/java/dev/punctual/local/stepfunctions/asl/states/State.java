package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;

/**
 * One state of a state machine. The run loop ({@link GraphRun}) does the input and output processing
 * the spec orders (InputPath, Parameters, the action, ResultSelector, ResultPath, OutputPath);
 * subclasses implement only the action. The errors a state raises about its own execution
 * ({@link dev.punctual.local.stepfunctions.asl.errors.StateExecutionError}) say only what went wrong; the
 * run that executes the state gives their cause the state's name and entered event.
 */
public abstract class State {

    private final StateFields fields;

    protected State(StateFields fields) {
        this.fields = fields;
    }

    public String name() {
        return fields.name();
    }

    public StateFields fields() {
        return fields;
    }

    /** {@code Type} as written in the definition; also the prefix of the state's history events. */
    public abstract String type();

    /**
     * Whether the action produces a result that ResultSelector and ResultPath merge into the input
     * (Pass, Task, Map, Parallel); otherwise the output is the effective input (Wait, Choice, Succeed).
     */
    protected abstract boolean producesResult();

    /** Whether the state ends its state machine successfully after its action (Succeed). */
    protected boolean terminal() {
        return false;
    }

    /** Whether the state emits a {@code <Type>StateExited} event (every state but Fail). */
    protected boolean exits() {
        return true;
    }

    /** Performs the state's action on its effective input and completes or fails {@code attempt}. */
    protected abstract void act(Attempt attempt);

    JsonNode applyInputPath(JsonNode raw, JsonNode context) {
        return select(fields.inputPath(), raw, context);
    }

    JsonNode applyOutputPath(JsonNode combined, JsonNode context) {
        return select(fields.outputPath(), combined, context);
    }

    /** A null path field passes on {@code {}}, an absent one everything ({@code $}). */
    private static JsonNode select(PathField<JsonPaths.Path> field, JsonNode data, JsonNode context) {
        if (field.isNull()) {
            return Json.MAPPER.createObjectNode();
        }
        JsonPaths.Path path = field.path();
        if (path == null) {
            return data;
        }
        return path.find(data, context).orElseThrow(() -> invalidPath(path, data, context));
    }

    /**
     * A path of the state's (InputPath, OutputPath, ItemsPath, TimeoutSecondsPath) that selects nothing,
     * worded as Step Functions words it: {@code Invalid path '$.a' : No results for path: $['a']}.
     */
    static StatesRuntimeError invalidPath(JsonPaths.Path path, JsonNode data, JsonNode context) {
        return new StatesRuntimeError("Invalid path '" + path.text() + "' : " + path.noResults(data, context));
    }
}
