package dev.punctual.local.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import software.amazon.awssdk.core.exception.SdkClientException;

/** {@code punctual}: the embedded runtime's command line. */
@Command(name = "punctual", mixinStandardHelpOptions = true, versionProvider = PunctualCommand.Version.class,
        description = "Second-accurate expiry for DynamoDB items, on an embedded local runtime.",
        subcommands = {
            LocalCommand.class,
            DemoCommand.class,
            BenchCommand.class,
            SoakCommand.class,
            BulkImportCommand.class,
            PendingCommand.class,
            EventsCommand.class,
            DlqCommand.class,
            BackfillCommand.class,
        })
public final class PunctualCommand {

    private PunctualCommand() {
    }

    /** {@code --version}: the one version the construct and the function report too. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"punctual " + dev.punctual.statemachine.PunctualVersion.current()};
        }
    }

    public static void main(String[] args) {
        CliLogging.install();
        System.exit(commandLine().execute(args));
    }

    /**
     * Runs one command line in this process, writing to {@code out} and {@code err}: for tests and for
     * tools that embed the CLI. Returns the exit code {@link #main} would exit with.
     */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine commandLine = commandLine();
        commandLine.setOut(out);
        commandLine.setErr(err);
        return commandLine.execute(args);
    }

    /** The configured command line, also used by tests. */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new PunctualCommand());
        commandLine.setExecutionExceptionHandler((exception, cmd, parseResult) -> {
            cmd.getErr().println(cmd.getColorScheme().errorText("punctual " + cmd.getCommandName() + ": " + describe(exception)));
            return 1;
        });
        return commandLine;
    }

    private static String describe(Exception exception) {
        if (exception instanceof SdkClientException && exception.getCause() instanceof java.net.ConnectException) {
            return exception.getMessage() + " (is `punctual local` running on that endpoint?)";
        }
        return exception.getMessage() == null ? exception.toString() : exception.getMessage();
    }
}
