package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** demo and bench share their options but not their defaults; --help shows each command's own. */
class TrialCommandDefaultsTest {

    @Test
    void benchHelp_showsTheBenchDefaults_sixtyThousandItemsOverSixtySecondsAfterAWarmUp() {
        String help = help("bench");

        assertThat(help).containsPattern("--items=<items>\\s+Items to write \\(default: 60000\\)");
        assertThat(help).containsPattern("--spread=SECONDS\\s+TTLs are spread over this many seconds \\(default:\\s+60\\)");
        assertThat(help).containsPattern("\\(default: 5000\\)");
    }

    @Test
    void demoHelp_showsTheDemoDefaults_fiveHundredItemsAndNoWarmUp() {
        String help = help("demo");

        assertThat(help).containsPattern("--items=<items>\\s+Items to write \\(default: 500\\)");
        assertThat(help).containsPattern("\\(default: 0\\)");
    }

    @Test
    void expiryEvents_offInBench_onInDemo_andEitherFlagWins() {
        assertThat(publishesExpiryEvents("bench")).as("bench measures a table that did not opt in").isFalse();
        assertThat(publishesExpiryEvents("bench", "--expiry-events")).isTrue();
        assertThat(publishesExpiryEvents("demo")).as("the demo feeds the console's events page").isTrue();
        assertThat(publishesExpiryEvents("demo", "--no-expiry-events")).isFalse();
    }

    @Test
    void aBadWarmUpCount_isRefusedWithTheAllowedRange() {
        StringWriter err = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(new StringWriter()), new PrintWriter(err),
                "bench", "--warmup-items", "-1");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--warmup-items must be 0-100000, got -1");
    }

    @Test
    void aDataDirThatHoldsSomething_isRefused_beforeTheRuntimeStarts(@TempDir Path data) throws IOException {
        Files.writeString(data.resolve("left-over"), "from an earlier run");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(out), new PrintWriter(err), "bench", "--data-dir", data.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--data-dir " + data + " is not empty");
        assertThat(out.toString()).doesNotContain("Starting the embedded runtime");
    }

    private static boolean publishesExpiryEvents(String... args) {
        CommandLine.ParseResult parsed = PunctualCommand.commandLine().parseArgs(args);
        return ((TrialCommand) parsed.subcommand().commandSpec().userObject()).publishesExpiryEvents();
    }

    private static String help(String command) {
        StringWriter out = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(out), new PrintWriter(new StringWriter()), command, "--help");
        assertThat(exit).isZero();
        return out.toString();
    }
}
