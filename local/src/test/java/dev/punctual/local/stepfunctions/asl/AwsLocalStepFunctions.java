package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The independent interpreter: {@code aws-local-stepfunctions} (npm) in one long-lived Node process
 * running {@code src/test/differential/interpreter.mjs}, fed one case per line. Installed with
 * {@code npm ci} from the committed {@code package-lock.json} into {@code target/differential-node}
 * the first time a test asks for it; shared by every test of the JVM and stopped when the JVM exits.
 */
final class AwsLocalStepFunctions implements AutoCloseable {

    private static final Path SOURCE = Path.of("src", "test", "differential");
    private static final Path INSTALL = Path.of("target", "differential-node");
    /** The Node process's error output: one file per test JVM, as the module's JVMs run side by side. */
    private static final String STDERR = "stderr-" + ProcessHandle.current().pid() + ".log";
    private static final List<String> FILES = List.of("package.json", "package-lock.json", "interpreter.mjs");

    private static AwsLocalStepFunctions shared;
    private static String unavailable;

    private final Process process;
    private final Writer toNode;
    private final BufferedReader fromNode;
    private long nextId;

    private AwsLocalStepFunctions(Process process) {
        this.process = process;
        this.toNode = process.outputWriter(StandardCharsets.UTF_8);
        this.fromNode = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * The shared interpreter, or empty with {@link #whyUnavailable()} set when Node is not on the PATH
     * (the only reason to skip). A failing {@code npm ci} is an error, not a skip.
     */
    static synchronized Optional<AwsLocalStepFunctions> shared() {
        if (shared == null && unavailable == null) {
            if (!commandWorks("node", "--version") || !commandWorks(npm(), "--version")) {
                unavailable = "Node.js and npm are not on the PATH; .ci/run installs them. The differential "
                        + "conformance run against aws-local-stepfunctions needs both.";
            } else {
                install();
                shared = start();
                AwsLocalStepFunctions started = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "stop-aws-local-stepfunctions"));
            }
        }
        return Optional.ofNullable(shared);
    }

    static synchronized String whyUnavailable() {
        return unavailable;
    }

    /**
     * Runs one case: {@code definition}, {@code input}, {@code now} (the virtual clock's start),
     * {@code context} and {@code tasks} (canned answers per resource ARN, as {@link CannedTaskResource}
     * takes them). Returns the interpreter's result line.
     */
    synchronized JsonNode run(ObjectNode testCase) {
        ObjectNode line = testCase.deepCopy();
        long id = ++nextId;
        line.put("id", id);
        try {
            toNode.write(Json.write(line));
            toNode.write('\n');
            toNode.flush();
            String answer = fromNode.readLine();
            if (answer == null) {
                throw new IllegalStateException("the aws-local-stepfunctions process ended (exit "
                        + exitCode() + "); see target/differential-node/" + STDERR);
            }
            JsonNode result = Json.parse(answer);
            if (result.path("id").asLong() != id) {
                throw new IllegalStateException("answer out of order: " + answer);
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String exitCode() {
        return process.isAlive() ? "still running" : String.valueOf(process.exitValue());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Installs the locked packages into {@link #INSTALL} unless they are there already. The module's test
     * JVMs run side by side, and two {@code npm ci} in one directory break each other: a file lock makes the
     * JVMs take turns, and the second finds the install done.
     */
    private static void install() {
        try {
            Files.createDirectories(INSTALL.getParent());
            try (FileChannel channel = FileChannel.open(INSTALL.resolveSibling("differential-node.lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                installLocked();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void installLocked() {
        try {
            Files.createDirectories(INSTALL);
            boolean lockChanged = !sameContent(SOURCE.resolve("package-lock.json"), INSTALL.resolve("package-lock.json"));
            for (String file : FILES) {
                Files.copy(SOURCE.resolve(file), INSTALL.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            if (lockChanged || !Files.isDirectory(INSTALL.resolve("node_modules").resolve("aws-local-stepfunctions"))) {
                // Exactly the locked versions; no install scripts run.
                Process npmCi = new ProcessBuilder(npm(), "ci", "--ignore-scripts", "--no-audit", "--no-fund",
                        "--loglevel=error")
                        .directory(INSTALL.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(INSTALL.resolve("npm-ci.log").toFile())
                        .start();
                if (!npmCi.waitFor(10, TimeUnit.MINUTES) || npmCi.exitValue() != 0) {
                    npmCi.destroyForcibly();
                    throw new IllegalStateException("npm ci failed in " + INSTALL.toAbsolutePath() + ":\n"
                            + Files.readString(INSTALL.resolve("npm-ci.log")));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing aws-local-stepfunctions", e);
        }
    }

    private static AwsLocalStepFunctions start() {
        try {
            Process process = new ProcessBuilder("node", "interpreter.mjs")
                    .directory(INSTALL.toFile())
                    .redirectError(INSTALL.resolve(STDERR).toFile())
                    .start();
            return new AwsLocalStepFunctions(process);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean sameContent(Path a, Path b) throws IOException {
        return Files.exists(b) && Files.mismatch(a, b) == -1;
    }

    private static String npm() {
        return System.getProperty("os.name").startsWith("Windows") ? "npm.cmd" : "npm";
    }

    private static boolean commandWorks(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
