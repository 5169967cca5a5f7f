package dev.punctual.local.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.LogManager;

/**
 * Logging for the command line: one line per event on stderr, so stdout carries only what the
 * command prints. The handler's decision lines (Log4j, Powertools JSON, exactly as in Lambda) show
 * at the level a command asks for; the embedded servers' own chatter (java.util.logging) only when
 * it matters.
 */
final class CliLogging {

    /** System property the CLI's Log4j configuration reads for Punctual's own loggers. */
    static final String LEVEL_PROPERTY = "punctual.log.level";

    private static final String JUL_CONFIG = String.join("\n",
            "handlers=java.util.logging.ConsoleHandler",
            "java.util.logging.ConsoleHandler.level=ALL",
            "java.util.logging.SimpleFormatter.format=%1$tT %4$s %3$s: %5$s%6$s%n",
            ".level=WARNING",
            // sqlite4java warns about its own jar version on every start; DynamoDB Local about JAXB.
            "com.almworks.sqlite4java.level=SEVERE",
            "com.amazonaws.level=SEVERE",
            "");

    private CliLogging() {
    }

    /** Installs the CLI's logging; call before anything logs. */
    static void install() {
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", "classpath:punctual-cli-log4j2.xml");
        }
        try {
            LogManager.getLogManager().readConfiguration(
                    new ByteArrayInputStream(JUL_CONFIG.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not configure java.util.logging", e);
        }
    }

    /** Shows Punctual's own log lines (decisions, stream watching) from here on: {@code punctual local}. */
    static void showPunctualActivity() {
        System.setProperty(LEVEL_PROPERTY, "INFO");
        java.util.logging.Logger.getLogger("dev.punctual").setLevel(java.util.logging.Level.INFO);
    }
}
