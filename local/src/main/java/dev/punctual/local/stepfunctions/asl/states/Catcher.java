package dev.punctual.local.stepfunctions.asl.states;

import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.paths.ReferencePath;
import java.util.List;
import java.util.Set;

/**
 * One entry of a state's {@code Catch}.
 *
 * @param resultPath where the error output goes; {@code null} keeps the state input as it was
 */
public record Catcher(List<String> errorEquals, ReferencePath resultPath, String next) {

    private static final Set<String> FIELDS = Set.of("ErrorEquals", "ResultPath", "Next", "Comment");

    /** Reads a state's {@code Catch} array. */
    static List<Catcher> readAll(DefinitionNode catchers) {
        return catchers.elements("Catch", Catcher::read);
    }

    private static Catcher read(DefinitionNode node, boolean last) {
        node.allowOnly(FIELDS);
        List<String> errors = Retrier.errorEquals(node, last);
        String next = node.requiredString("Next", "Each Catcher needs 'Next'");
        // Absent, the error output replaces the input ($); null keeps the input as it was.
        PathField<ReferencePath> resultPath = node.referencePathField("ResultPath");
        return new Catcher(errors, resultPath.isAbsent() ? ReferencePath.parse("$") : resultPath.path(), next);
    }

    /** Whether this Catcher catches {@code error}. */
    boolean matches(AslError error) {
        return error.catchable() && errorEquals.stream().anyMatch(error::matchedBy);
    }
}
