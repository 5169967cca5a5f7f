package dev.punctual.local.cli;

import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import java.io.UncheckedIOException;
import java.net.BindException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --console-port}: where the local console listens, on 127.0.0.1. */
final class ConsoleOptions {

    @Option(names = "--console-port", paramLabel = "PORT", defaultValue = "" + LocalDefaults.CONSOLE_PORT,
            description = "The console's port on 127.0.0.1 (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int consolePort;

    void check(CommandSpec spec) {
        if (consolePort < 0 || consolePort > 65_535) {
            throw new ParameterException(spec.commandLine(), "--console-port must be 0-65535 (0 picks a free port), got "
                    + consolePort);
        }
    }

    /** Starts the console of {@code runtime}; a taken port is an error that names the option to change. */
    ConsoleServer start(LocalRuntime runtime) {
        try {
            return ConsoleServer.start(runtime, consolePort);
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof BindException) {
                throw new IllegalStateException("Port " + consolePort + " for the console is in use; pass --console-port"
                        + " with a free port (0 picks one)", e);
            }
            throw e;
        }
    }

    /**
     * Starts the console of {@code runtime} on the port asked for; when that is the default port and it
     * is taken (a {@code punctual local} already serves its console there), on a free port instead.
     */
    ConsoleServer startOnAnyPortIfDefaultTaken(LocalRuntime runtime) {
        try {
            return start(runtime);
        } catch (IllegalStateException taken) {
            if (consolePort != LocalDefaults.CONSOLE_PORT) {
                throw taken;
            }
            return ConsoleServer.start(runtime, 0);
        }
    }

    /** The start-up line every command prints, aligned with {@code punctual local}'s others. */
    static String line(ConsoleServer console) {
        return String.format("%-20s%s", "Console", console.uri());
    }
}
