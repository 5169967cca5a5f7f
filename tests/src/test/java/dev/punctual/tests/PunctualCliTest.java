package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.tests.support.ExpiryExecutions;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.SharedRuntime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The {@code punctual} command line, run as users run it: {@code java -jar punctual.jar ...}. Each
 * command runs in a JVM of its own with its own runtime (or against its own table), so the tests run
 * side by side.
 */
@ExtendWith(SharedRuntime.class)
@Execution(ExecutionMode.CONCURRENT)
class PunctualCliTest {

    /**
     * A hang guard for a command (a JVM of its own, then its work: a demo's 50 items over 2 s, or one call and
     * a print): the test waits for it to end and asserts what it printed, not how soon. A JVM takes 27 s to
     * start at load 26, and 30 s ran out at 47.
     */
    private static final Duration HANG_GUARD = Duration.ofMinutes(5);

    private static LocalRuntime runtime;

    @TempDir
    Path output;

    @BeforeAll
    static void connect(LocalRuntime shared) {
        runtime = shared;
    }

    @Test
    void demo_whenAllGoesWell_reportsNothingEarlyNothingMissed_andExitsZero() throws Exception {
        Run run = punctual(HANG_GUARD, "demo", "--items", "50", "--spread", "2", "--no-progress");

        assertThat(run.exitCode()).as("exit code; output:%n%s%n%s", run.out(), run.err()).isZero();
        assertThat(run.lines()).contains("items              50")
                .anySatisfy(line -> assertThat(line).matches("Console {13}http://127\\.0\\.0\\.1:\\d+/"))
                .anySatisfy(line -> assertThat(line).startsWith("early              0 "))
                .anySatisfy(line -> assertThat(line).startsWith("missed             0 "))
                .anySatisfy(line -> assertThat(line).startsWith("deleted            50"))
                .contains("OK: every item expired at its TTL, none early, none missed.");
    }

    @Test
    void bench_onADurableRuntime_expiresEveryItem_andKeepsItsDataInTheDirectory() throws Exception {
        Path data = output.resolve("data");
        Run run = punctual(HANG_GUARD, "bench", "--items", "50", "--spread", "2", "--lead", "3",
                "--warmup-items", "0", "--data-dir", data.toString(), "--json");

        assertThat(run.exitCode()).as("exit code; output:%n%s%n%s", run.out(), run.err()).isZero();
        assertThat(run.out()).contains("\"items\":50,\"deleted\":50,\"early\":0,\"missed\":0");
        assertThat(data.resolve("dynamodb").resolve("shared-local-instance.db")).isNotEmptyFile();
        assertThat(data.resolve("stepfunctions")).isNotEmptyDirectory();
        assertThat(data.resolve("stream").resolve("stream-checkpoints.json")).isNotEmptyFile();
    }

    @Test
    void demo_withNoItems_failsWithAClearMessage() throws Exception {
        Run run = punctual(HANG_GUARD, "demo", "--items", "0");

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("--items must be 1-1000000, got 0");
        assertThat(run.out()).doesNotContain("Starting the embedded runtime");
    }

    @Test
    void pending_listsAPendingExpiration_withItsTableAndExpiry() throws Exception {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-cli");
        long ttl = Instant.now().plus(Duration.ofHours(1)).getEpochSecond();
        table.putWithTtl("a", ttl);
        ExpiryExecutions executions = new ExpiryExecutions(runtime);
        String name = ExpiryExecutions.nameOf(table.name(), "a", Long.toString(ttl));
        executions.awaitStarted(executions.arn(name));

        Run run = punctual(HANG_GUARD, "pending", "--sfn-endpoint", runtime.endpoints().stepFunctions().toString(),
                "--table", table.name());

        assertThat(run.exitCode()).as("exit code; stderr:%n%s", run.err()).isZero();
        assertThat(run.lines().get(0)).startsWith("EXPIRES AT").contains("TABLE", "TTL", "KEY", "EXECUTION");
        assertThat(run.lines()).anySatisfy(line -> assertThat(line)
                        .startsWith(Instant.ofEpochSecond(ttl).toString())
                        .contains(table.name(), Long.toString(ttl), name))
                .contains("1 pending expiration(s)");
    }

    private record Run(int exitCode, String out, String err) {
        List<String> lines() {
            return out.lines().map(String::stripTrailing).toList();
        }
    }

    /** Runs the real jar in a JVM of its own; output goes to files so a full pipe never blocks it. */
    private Run punctual(Duration timeout, String... args) throws IOException, InterruptedException {
        String jar = System.getProperty("punctual.jar");
        assertThat(jar).as("system property punctual.jar (set by the tests module's surefire configuration)").isNotNull();
        assertThat(Path.of(jar)).as("the packaged CLI; build with -am so local/ is packaged first").isRegularFile();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(output, "out", ".txt");
        Path err = Files.createTempFile(output, "err", ".txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("punctual " + String.join(" ", args) + " did not finish within " + timeout
                        + "; output so far:\n" + Files.readString(out, StandardCharsets.UTF_8));
            }
        } finally {
            process.destroyForcibly();
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
