package dev.punctual.local.cli;

import java.util.Map;
import picocli.CommandLine.Command;

/**
 * {@code punctual demo}: the README's first command. 500 items over 15 seconds, starting 5 seconds
 * out, which a 2-core laptop schedules well ahead of the first TTL even with a cold JVM.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Write items with TTLs over the coming seconds, let Punctual expire them, report accuracy.",
        defaultValueProvider = DemoCommand.Defaults.class)
final class DemoCommand extends TrialCommand {

    /** The demo always serves the console, so a newcomer can watch the items count down and expire. */
    @Override
    boolean serveConsole() {
        return true;
    }

    /** On, as in {@code punctual local}: the console's events page shows the demo's expiries. */
    @Override
    boolean expiryEventsByDefault() {
        return true;
    }

    /** Demo-sized defaults. */
    static final class Defaults extends TrialCommand.Defaults {
        Defaults() {
            super(Map.of("--items", "500", "--spread", "15", "--lead", "5", "--writers", "4",
                    "--warmup-items", "0"));
        }
    }
}
