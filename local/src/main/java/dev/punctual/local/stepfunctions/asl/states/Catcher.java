package dev.punctual.local.stepfunctions.asl.states;

import dev.punctual.local.stepfunctions.asl.ErrorNames;
import dev.punctual.local.stepfunctions.asl.paths.ReferencePath;
import java.util.List;

/**
 * One entry of a state's {@code Catch}.
 *
 * @param resultPath where the error output goes; {@code null} keeps the state input as it was
 */
public record Catcher(List<String> errorEquals, ReferencePath resultPath, String next) {

    boolean matches(String error) {
        return errorEquals.stream().anyMatch(e -> ErrorNames.matches(e, error));
    }
}
