package dev.punctual.local.cli;

import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code punctual bench}: the demo's measurement at scale, for the performance record. Defaults to
 * 60,000 items expiring over 60 s (1,000 a second), after a warm-up trial of 5,000 items so the
 * measured one runs on JIT-compiled code. The first TTL is 120 s out: the items are written while the
 * stream mapping is disabled and scheduled from the backlog after, and both must finish before it.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure expiry accuracy at scale: count, early, missed, lag p50/p95/p99/max, throughput, heap.",
        defaultValueProvider = BenchCommand.Defaults.class)
final class BenchCommand extends TrialCommand {

    @Option(names = "--console", negatable = false,
            description = "Serve the local console while the benchmark runs (on --console-port).")
    boolean console;

    @Override
    boolean serveConsole() {
        return console;
    }

    /** Off, as in the construct: the figures are those of a table that did not opt in. */
    @Override
    boolean expiryEventsByDefault() {
        return false;
    }

    /** Bench-sized defaults. */
    static final class Defaults extends TrialCommand.Defaults {
        Defaults() {
            super(Map.of("--items", "60000", "--spread", "60", "--lead", "120", "--writers", "8",
                    "--warmup-items", "5000"));
        }
    }
}
