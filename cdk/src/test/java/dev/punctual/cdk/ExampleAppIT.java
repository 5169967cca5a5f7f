package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's promise: a team's own CDK app adds {@code dev.punctual:punctual-cdk} and synthesizes.
 * {@code examples/attach-existing-table} is copied to a temporary directory outside the repository, built
 * with Maven against a private local repository holding only the artifacts this build produced (third-party
 * artifacts are linked in from the build's own local repository; what it lacks, such as versions only a
 * consumer's dependency mediation reads, comes from the registry as in any team's build), and synthesized with the CDK CLI that
 * matches aws-cdk-lib. Run by failsafe, after {@code package}, so punctual-cdk's jar exists. A construct
 * that looked for its bundle in the source tree fails here: nothing of the repository is near the copy.
 */
class ExampleAppIT {

    static final String CDK_CLI = "aws-cdk@2.1148.1";
    static final String STREAM_ARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/orders/stream/2026-01-01T00:00:00.000";

    private static Path work;

    @BeforeAll
    static void requireNode() throws IOException {
        assumeTrue(onPath("node") && onPath("npm"),
                "Skipped: Node.js and npm are not on the PATH; the CDK CLI (" + CDK_CLI + ") and jsii need them");
        work = Files.createTempDirectory("punctual-example-");
    }

    @Test
    void exampleApp_outsideTheRepository_synthesizesFunctionStateMachineAndMapping() throws Exception {
        Path repositoryRoot = Path.of(property("punctual.repository.root")).toRealPath();
        assertThat(work.toRealPath().startsWith(repositoryRoot)).as("the copy must be outside the repository").isFalse();

        Path app = copyTree(repositoryRoot.resolve("examples/attach-existing-table"), work.resolve("app"));
        Path localRepository = privateRepository(work.resolve("m2"));
        String version = property("punctual.version");

        run(app, List.of(property("punctual.mvn"), "-B", "-q", "-Dmaven.repo.local=" + localRepository,
                "-Dpunctual.version=" + version, "process-classes"), Map.of());
        Path cdk = cdkCli();
        run(app, List.of(cdk.toString(), "synth", "--no-notices", "-q", "-c", "tableStreamArn=" + STREAM_ARN),
                Map.of("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20"));

        JsonNode template = TemplateJson.JSON.readTree(app.resolve("cdk.out/OrdersExpiry.template.json").toFile());
        List<String> types = new ArrayList<>();
        template.path("Resources").forEach(resource -> types.add(resource.path("Type").asText()));
        assertThat(types).contains("AWS::Lambda::Function", "AWS::StepFunctions::StateMachine",
                "AWS::Lambda::EventSourceMapping", "AWS::CloudWatch::Dashboard");
        assertThat(template.path("Outputs").path("BackfillStateMachineArn").path("Description").asText())
                .contains("aws stepfunctions start-execution");
        assertThat(template.path("Outputs").path("BackfillProgressTableName").path("Value").isMissingNode()).isFalse();
        try (Stream<Path> staged = Files.list(app.resolve("cdk.out"))) {
            assertThat(staged.map(path -> path.getFileName().toString()))
                    .anyMatch(name -> name.startsWith("asset.") && name.endsWith(".jar"));
        }
    }

    /**
     * A local repository for the example's build: this build's artifacts of Punctual, copied in Maven's
     * layout, and every other group linked from the build's own local repository (read, not installed to).
     */
    private static Path privateRepository(Path repository) throws IOException {
        Path seed = Path.of(property("punctual.seed.repository"));
        Files.createDirectories(repository.resolve("dev"));
        try (Stream<Path> groups = Files.list(seed)) {
            for (Path group : groups.toList()) {
                if (Files.isDirectory(group) && !group.getFileName().toString().equals("dev")) {
                    Files.createSymbolicLink(repository.resolve(group.getFileName().toString()), group);
                }
            }
        }
        if (Files.isDirectory(seed.resolve("dev"))) {
            try (Stream<Path> groups = Files.list(seed.resolve("dev"))) {
                for (Path group : groups.toList()) {
                    if (!group.getFileName().toString().equals("punctual")) {
                        Files.createSymbolicLink(repository.resolve("dev").resolve(group.getFileName().toString()), group);
                    }
                }
            }
        }
        String version = property("punctual.version");
        place(repository, "punctual-parent", version, "pom", Path.of(property("punctual.parent.pom")));
        place(repository, "punctual-statemachine", version, "pom", Path.of(property("punctual.statemachine.pom")));
        place(repository, "punctual-statemachine", version, "jar", Path.of(property("punctual.statemachine.jar")));
        place(repository, "punctual-cdk", version, "pom", Path.of(property("punctual.cdk.pom")));
        place(repository, "punctual-cdk", version, "jar", Path.of(property("punctual.cdk.jar")));
        return repository;
    }

    private static void place(Path repository, String artifactId, String version, String extension, Path file)
            throws IOException {
        assertThat(file).as(artifactId + " " + extension + " built by this reactor").isRegularFile();
        Path directory = Files.createDirectories(repository.resolve("dev/punctual").resolve(artifactId).resolve(version));
        Files.copy(file, directory.resolve(artifactId + "-" + version + "." + extension), StandardCopyOption.REPLACE_EXISTING);
    }

    /** The CDK CLI, installed once per machine into a directory of its own under the temporary directory. */
    private static Path cdkCli() throws Exception {
        Path prefix = Path.of(System.getProperty("java.io.tmpdir"), "punctual-" + CDK_CLI.replace('@', '-'));
        Path cli = prefix.resolve("node_modules/.bin/cdk");
        if (!Files.isExecutable(cli)) {
            run(work, List.of("npm", "install", "--prefix", prefix.toString(), "--no-audit", "--no-fund", CDK_CLI), Map.of());
        }
        return cli;
    }

    private static void run(Path directory, List<String> command, Map<String, String> environment) throws Exception {
        Path log = Files.createTempFile(work, "command-", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = new HashMap<>(environment);
        builder.environment().putAll(env);
        builder.environment().remove("MAVEN_OPTS");
        Process process = builder.start();
        if (!process.waitFor(8, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in 8 minutes");
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(String.join(" ", command) + " in " + directory + ":\n" + output).isZero();
    }

    private static Path copyTree(Path source, Path target) throws IOException {
        try (Stream<Path> paths = Files.walk(source)) {
            for (Path path : paths.toList()) {
                Path relative = source.relativize(path);
                if (relative.startsWith("target") || relative.startsWith("cdk.out")) {
                    continue;
                }
                Path destination = target.resolve(relative.toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(destination);
                } else {
                    Files.copy(path, destination);
                }
            }
        }
        return target;
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertThat(value).as("system property " + name + " (set by cdk/pom.xml's failsafe configuration)").isNotBlank();
        return value;
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(directory, command))) {
                return true;
            }
        }
        return false;
    }
}
