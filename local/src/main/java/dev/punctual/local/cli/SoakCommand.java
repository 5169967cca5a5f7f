package dev.punctual.local.cli;

import dev.punctual.local.measure.SoakMinute;
import dev.punctual.local.measure.SoakTrial;
import dev.punctual.local.runtime.LocalRuntime;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code punctual soak}: the runtime as {@code punctual local} runs it (expiry events on, the default
 * retention unless {@code --retain} says otherwise), written to at a steady rate for minutes, with a
 * row a minute of what it holds, then {@code bench}'s verdict. A runtime whose memory follows what is
 * pending shows flat heap and journal columns once the first TTLs fall due.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
        description = "Write --rate items a second with TTLs 10-70 s out for --minutes; print each minute's written,"
                + " expired, pending, closed executions kept, heap after a full GC, resident memory and journal size;"
                + " then bench's verdict.")
final class SoakCommand implements Callable<Integer> {

    /**
     * The minute the last one is compared with: by then the first TTLs fell due, the closed executions kept
     * reached their count at 150 a second, and the JIT settled. A short run compares with its middle.
     */
    static final int REFERENCE_MINUTE = 5;

    @Spec
    CommandSpec spec;

    @Option(names = "--minutes", defaultValue = "30", description = "Minutes to write for (default: ${DEFAULT-VALUE}).")
    int minutes;

    @Option(names = "--rate", defaultValue = "150", description = "Items written a second (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--min-lead", defaultValue = "10", paramLabel = "S",
            description = "Shortest time from a write to its TTL, in seconds (default: ${DEFAULT-VALUE}).")
    int minLeadSeconds;

    @Option(names = "--max-lead", defaultValue = "70", paramLabel = "S",
            description = "Longest time from a write to its TTL, in seconds (default: ${DEFAULT-VALUE}).")
    int maxLeadSeconds;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "per-item",
            description = "per-item or windowed (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Run durable, keeping everything here (default: in memory). Give it a new or empty directory.")
    Path dataDirectory;

    @Mixin
    RetentionOptions retentionOptions;

    @Mixin
    BucketDeleteOptions bucketDeleteOptions;

    @Override
    public Integer call() throws InterruptedException {
        if (minutes < 1 || minutes > 7 * 24 * 60) {
            throw new ParameterException(spec.commandLine(), "--minutes must be 1-10080, got " + minutes);
        }
        if (rate < 1 || rate > 5_000) {
            throw new ParameterException(spec.commandLine(), "--rate must be 1-5000, got " + rate);
        }
        if (minLeadSeconds < 2 || maxLeadSeconds < minLeadSeconds) {
            throw new ParameterException(spec.commandLine(), "--min-lead must be at least 2 and --max-lead at least"
                    + " --min-lead; got " + minLeadSeconds + " and " + maxLeadSeconds);
        }
        if (dataDirectory != null) {
            RuntimeOptions.checkDataDirectory(spec, dataDirectory);
        }
        PrintWriter out = spec.commandLine().getOut();
        LocalRuntime.Options options = bucketDeleteOptions.applyTo(spec, LocalRuntime.Options.onFreePorts()
                .withDataDirectory(dataDirectory).withMode(RuntimeOptions.mode(spec, mode))
                .withRetention(retentionOptions.retention()));
        String table = "punctual-soak-" + System.currentTimeMillis();
        try (LocalRuntime runtime = RuntimeStarter.start(options)) {
            out.printf(Locale.ROOT, "Soak: %d items a second for %d minutes, TTLs %d-%d s out, mode %s, %s; max heap %d MB%n",
                    rate, minutes, minLeadSeconds, maxLeadSeconds, options.mode(),
                    dataDirectory == null ? "in memory" : "data in " + dataDirectory.toAbsolutePath(),
                    Runtime.getRuntime().maxMemory() / (1024 * 1024));
            out.printf("Keeping %s%n", RetentionOptions.describe(options.retention()));
            out.println(SoakMinute.header());
            out.flush();
            SoakTrial.Report report = new SoakTrial(runtime).run(new SoakTrial.Settings(table, minutes, rate,
                    Duration.ofSeconds(minLeadSeconds), Duration.ofSeconds(maxLeadSeconds), Duration.ofSeconds(60)),
                    minute -> {
                        out.println(minute.toText());
                        out.flush();
                    });
            out.println();
            out.println(report.accuracy().toText());
            comparison(report.minutes()).ifPresent(out::println);
            out.println(report.accuracy().verdict());
            out.flush();
            return report.accuracy().perfect() ? 0 : 2;
        }
    }

    /**
     * The last minute against the reference minute: heap after GC and journal, in the units the bounds
     * use, and the closed executions kept at both, without which a journal still filling up to its
     * {@code --retain closed-executions} bound reads as one that keeps what it should forget.
     */
    static Optional<String> comparison(List<SoakMinute> minutes) {
        if (minutes.size() < 3) {
            return Optional.empty();
        }
        SoakMinute reference = minutes.get(Math.min(REFERENCE_MINUTE, Math.max(2, minutes.size() / 2)) - 1);
        SoakMinute last = minutes.get(minutes.size() - 1);
        return Optional.of(String.format(Locale.ROOT,
                "minute %d vs %d     heap after GC %+d MB (%d -> %d); journal %s; journal peak %s; closed executions"
                        + " kept %,d -> %,d; RSS %+d MB",
                last.minute(), reference.minute(), last.heapAfterGcMb() - reference.heapAfterGcMb(),
                reference.heapAfterGcMb(), last.heapAfterGcMb(), change(reference.journalBytes(), last.journalBytes()),
                change(reference.journalPeakBytes(), last.journalPeakBytes()), reference.closedKept(),
                last.closedKept(), last.residentMb() - reference.residentMb()));
    }

    private static String change(long from, long to) {
        if (from <= 0) {
            return "n/a (in memory)";
        }
        return String.format(Locale.ROOT, "%+.1f %% (%,d -> %,d KB)", 100.0 * (to - from) / from,
                Math.round(from / 1024.0), Math.round(to / 1024.0));
    }
}
