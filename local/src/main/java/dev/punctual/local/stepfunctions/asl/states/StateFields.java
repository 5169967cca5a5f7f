package dev.punctual.local.stepfunctions.asl.states;

import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import dev.punctual.local.stepfunctions.asl.paths.ReferencePath;
import java.util.List;
import java.util.Set;

/**
 * The fields several state types share, as {@link #read} read them: the transition, the input and
 * output processing the run loop applies around every action, and the error handling. A type takes
 * only those of them its {@link StateType#commonFields()} name; the others stay absent.
 */
public final class StateFields {

    /** {@code Next} or {@code End}: the states that go on to another (all but Choice, Succeed and Fail). */
    public static final Set<String> TRANSITION = Set.of("Next", "End");
    /** {@code InputPath} and {@code OutputPath}, which every state but Fail takes. */
    public static final Set<String> PATHS = Set.of("InputPath", "OutputPath");
    /** What a state that produces a result takes to shape it and to handle its errors. */
    public static final Set<String> RESULT_AND_ERRORS = Set.of("ResultSelector", "ResultPath", "Retry", "Catch");

    private final String name;
    private final String next;
    private final PathField<JsonPaths.Path> inputPath;
    private final PathField<JsonPaths.Path> outputPath;
    private final PayloadTemplate parameters;
    private final PayloadTemplate resultSelector;
    private final PathField<ReferencePath> resultPath;
    private final List<Retrier> retriers;
    private final List<Catcher> catchers;

    private StateFields(String name, DefinitionNode node, Set<String> common) {
        this.name = name;
        this.next = common.contains("Next") ? next(node) : null;
        this.inputPath = node.pathField("InputPath");
        this.outputPath = node.pathField("OutputPath");
        this.parameters = common.contains("Parameters") ? node.optionalTemplate("Parameters") : null;
        this.resultSelector = node.optionalTemplate("ResultSelector");
        this.resultPath = node.referencePathField("ResultPath");
        this.retriers = node.has("Retry") ? Retrier.readAll(node.field("Retry")) : List.of();
        this.catchers = node.has("Catch") ? Catcher.readAll(node.field("Catch")) : List.of();
    }

    /**
     * Reads the common fields of the state {@code name}; {@code common} says which of them its type
     * takes (its allowed fields were checked already).
     */
    public static StateFields read(String name, DefinitionNode node, Set<String> common) {
        return new StateFields(name, node, common);
    }

    private static String next(DefinitionNode node) {
        var nextNode = node.get("Next");
        var end = node.get("End");
        boolean ends = end != null && end.isBoolean() && end.booleanValue();
        if (end != null && !end.isBoolean()) {
            throw node.error("End", "'End' must be a boolean");
        }
        if (nextNode != null && ends) {
            throw node.error("'Next' and 'End' cannot both be set");
        }
        if (nextNode == null && !ends) {
            throw node.error("A " + node.get("Type").textValue() + " state must have 'Next' or \"End\": true");
        }
        if (nextNode == null) {
            return null;
        }
        if (!nextNode.isTextual()) {
            throw node.error("Next", "'Next' must be a state name");
        }
        return nextNode.textValue();
    }

    public String name() {
        return name;
    }

    /** The {@code Next} state, or {@code null} for {@code End} and terminal states. */
    public String next() {
        return next;
    }

    public PathField<JsonPaths.Path> inputPath() {
        return inputPath;
    }

    public PathField<JsonPaths.Path> outputPath() {
        return outputPath;
    }

    /** {@code Parameters}, or {@code null}; a Map's legacy {@code Parameters} is its item selector instead. */
    public PayloadTemplate parameters() {
        return parameters;
    }

    public PayloadTemplate resultSelector() {
        return resultSelector;
    }

    public PathField<ReferencePath> resultPath() {
        return resultPath;
    }

    public List<Retrier> retriers() {
        return retriers;
    }

    public List<Catcher> catchers() {
        return catchers;
    }
}
