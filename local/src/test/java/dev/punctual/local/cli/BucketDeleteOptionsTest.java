package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.StreamWiring;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code --bucket-delete-concurrency N}: one option on every command that starts the runtime, the
 * construct's default when not given, refused before anything starts when out of bounds or given for a
 * mode without a bucket function.
 */
class BucketDeleteOptionsTest {

    /** Every command that starts the runtime. */
    private static final List<String> COMMANDS = List.of("local", "demo", "bench", "soak", "bulk-import");

    @Test
    void notGiven_theRuntimeDeletesAsManyAtOnceAsTheConstructsDefault() {
        assertThat(localOptions("--mode", "windowed").bucketDeleteConcurrency())
                .isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY);
    }

    @Test
    void given_reachesTheRuntimesOptions() {
        assertThat(localOptions("--mode", "windowed", "--bucket-delete-concurrency", "8").bucketDeleteConcurrency())
                .isEqualTo(8);
        assertThat(localOptions("--mode", "windowed", "--bucket-delete-concurrency", "256").bucketDeleteConcurrency())
                .isEqualTo(StreamWiring.MAX_MAX_CONCURRENCY);
    }

    @Test
    void everyCommandThatStartsTheRuntime_takesTheOption() {
        CommandLine punctual = PunctualCommand.commandLine();
        for (String command : COMMANDS) {
            assertThat(punctual.getSubcommands().get(command).getCommandSpec().findOption("--bucket-delete-concurrency"))
                    .as(command).isNotNull();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0", "257", "-1", "many", "1.5"})
    void outOfBoundsOrNotAWholeNumber_isRefusedAtParseTime_byEveryCommand_sayingWhatItMustBe(String value) {
        for (String command : COMMANDS) {
            Result result = run(command, "--mode", "windowed", "--bucket-delete-concurrency", value);

            assertThat(result.exit()).as(command).isEqualTo(2);
            assertThat(result.err()).as(command)
                    .contains("Invalid value for option '--bucket-delete-concurrency'")
                    .contains("must be a whole number from 1 to 256")
                    .contains("got '" + value + "'");
            assertThat(result.out()).as(command).doesNotContain("Starting", "ready");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"local", "demo", "bench", "soak", "bulk-import"})
    void perItemMode_refusesIt_beforeStartingAnything_sinceItHasNoBucketFunction(String command) {
        List<String> args = new ArrayList<>(List.of(command, "--bucket-delete-concurrency", "8"));
        if (command.equals("local")) {
            args.add("--quiet");
        }

        Result result = run(args.toArray(String[]::new));

        assertThat(result.exit()).isEqualTo(2);
        assertThat(result.err()).contains("--bucket-delete-concurrency applies to windowed mode only")
                .contains("per-item mode has no bucket function").contains("add --mode windowed");
        assertThat(result.out()).doesNotContain("Starting", "ready");
    }

    private static LocalRuntime.Options localOptions(String... args) {
        LocalCommand local = new LocalCommand();
        CommandLine commandLine = new CommandLine(local);
        commandLine.parseArgs(args);
        return local.runtimeOptions.toRuntimeOptions(commandLine.getCommandSpec(), 0, 0);
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(exit, out.toString(), err.toString());
    }

    private record Result(int exit, String out, String err) {
    }
}
