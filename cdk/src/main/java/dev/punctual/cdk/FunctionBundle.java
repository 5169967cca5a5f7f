package dev.punctual.cdk;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the deployable Lambda bundle the functions module shades at {@code package}
 * ({@value #JAR_IN_REPOSITORY} under the repository root). The CDK app runs from {@code cdk/} and
 * tests run with {@code cdk/} as working directory, but a consumer may start anywhere inside the
 * repository, so the root is found by walking up to the directory that holds {@value #MARKER}.
 */
public final class FunctionBundle {

    /** Path of the shaded jar relative to the repository root. */
    public static final String JAR_IN_REPOSITORY = "functions/target/punctual-functions-lambda.jar";

    /** System property that points at a jar elsewhere (a downloaded release, a CI artifact). */
    public static final String JAR_PROPERTY = "punctual.functions.jar";

    private static final String MARKER = "functions/pom.xml";

    private FunctionBundle() {
    }

    /** The bundle for this process: the {@value #JAR_PROPERTY} property, else found from the working directory. */
    public static Path locate() {
        String override = System.getProperty(JAR_PROPERTY);
        if (override != null && !override.isBlank()) {
            return requireJar(Path.of(override).toAbsolutePath().normalize(), "-D" + JAR_PROPERTY);
        }
        return locateFrom(Path.of("").toAbsolutePath());
    }

    /**
     * The bundle of the repository that contains {@code start}.
     *
     * @throws IllegalStateException when no repository root is above {@code start} or its jar has not been
     *     built yet, saying which command builds it
     */
    public static Path locateFrom(Path start) {
        for (Path dir = start.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(MARKER))) {
                return requireJar(dir.resolve(JAR_IN_REPOSITORY), "the repository at " + dir);
            }
        }
        throw new IllegalStateException("No Punctual repository (a directory holding " + MARKER + ") above "
                + start + "; run the CDK app from inside the repository or pass -D" + JAR_PROPERTY + "=<jar>");
    }

    private static Path requireJar(Path jar, String source) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("The Lambda bundle " + jar + " (from " + source + ") does not exist. "
                    + "Build the reactor first, from the repository root: mvn -B -o package -DskipTests "
                    + "(running the cdk module alone does not build the functions module's shaded jar)");
        }
        return jar;
    }
}
