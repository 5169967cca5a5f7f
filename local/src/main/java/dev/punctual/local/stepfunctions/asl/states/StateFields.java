package dev.punctual.local.stepfunctions.asl.states;

import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import dev.punctual.local.stepfunctions.asl.paths.PayloadTemplate;
import dev.punctual.local.stepfunctions.asl.paths.ReferencePath;
import java.util.List;

/**
 * The fields states share, as the parser read them. A {@code null} path means the field was absent
 * ({@code $}, keep everything); the {@code ...Null} flags mean it was given as JSON {@code null}.
 *
 * @param next the {@code Next} state, or {@code null} for {@code End} and terminal states
 */
public record StateFields(
        String name,
        String next,
        JsonPaths.Path inputPath,
        boolean inputPathNull,
        JsonPaths.Path outputPath,
        boolean outputPathNull,
        PayloadTemplate parameters,
        PayloadTemplate resultSelector,
        ReferencePath resultPath,
        boolean resultPathNull,
        List<Retrier> retriers,
        List<Catcher> catchers) {

    /** Fields of a state with nothing but a name and a successor. */
    public static StateFields named(String name, String next) {
        return new StateFields(name, next, null, false, null, false, null, null, null, false, List.of(), List.of());
    }
}
