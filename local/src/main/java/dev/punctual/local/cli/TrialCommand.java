package dev.punctual.local.cli;

import dev.punctual.local.billing.CostMeter;
import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.measure.AccuracyReport;
import dev.punctual.local.measure.ExpiryTrial;
import dev.punctual.local.measure.PublishedMetrics;
import dev.punctual.local.measure.ScheduleReport;
import dev.punctual.local.measure.ScheduleTrial;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What {@code punctual demo} and {@code punctual bench} share: start the runtime, write items whose
 * TTLs fall over the coming seconds, and report how accurately they expired. Each subcommand brings
 * its own defaults.
 */
abstract class TrialCommand implements Callable<Integer> {

    /** Longer than any trial runs, so nothing of it is forgotten by age. */
    private static final Duration TRIAL_RETENTION = Duration.ofHours(6);

    /** How long expiry may make no progress at all before the items left are counted missed. */
    private static final Duration GRACE = Duration.ofSeconds(30);

    @Spec
    CommandSpec spec;

    @Option(names = "--items", description = "Items to write (default: ${DEFAULT-VALUE}).")
    int items;

    @Option(names = "--spread", paramLabel = "SECONDS",
            description = "TTLs are spread over this many seconds (default: ${DEFAULT-VALUE}).")
    int spreadSeconds;

    @Option(names = "--lead", paramLabel = "SECONDS",
            description = "Seconds from the start until the first TTL (default: ${DEFAULT-VALUE}).")
    int leadSeconds;

    @Option(names = "--writers", description = "Concurrent writers (default: ${DEFAULT-VALUE}).")
    int writers;

    @Option(names = "--warmup-items", paramLabel = "N",
            description = "Before measuring, expire N items on a separate table (over N/1000 s) so the JIT has compiled"
                    + " the delete path; 0 for none (default: ${DEFAULT-VALUE}).")
    int warmupItems;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Run on a durable runtime: DynamoDB Local's database and the engine's fsync'd journal in DIR,"
                    + " which must be new or empty (default: in memory).")
    Path dataDirectory;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "per-item",
            description = "per-item (one execution per item) or windowed (time buckets); default: ${DEFAULT-VALUE}.")
    String mode;

    @Option(names = "--schedule-only", negatable = false,
            description = "Stop once every item is pending (scheduled) and report writing and scheduling time, open"
                    + " executions and heap, without waiting for the TTLs: what holding a bulk import pending costs.")
    boolean scheduleOnly;

    @Mixin
    QuotaOptions quotaOptions;

    @Mixin
    ConsoleOptions consoleOptions;

    @Mixin
    FaultOptions faultOptions;

    @Mixin
    BucketDeleteOptions bucketDeleteOptions;

    @Option(names = "--expiry-events", negatable = true,
            description = "Publish ItemExpired events while the trial runs, as a table with expiryEvents on would"
                    + " (demo: on; bench: off, as the construct's default).")
    Boolean expiryEvents;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(names = "--timeline", negatable = false,
            description = "Show the timeline of every TTL second (with --json: timeline.perSecond), not only its"
                    + " percentiles over the seconds.")
    boolean timeline;

    @Option(names = "--no-progress", negatable = false, description = "No progress bars.")
    boolean noProgress;

    /** Whether this run serves the local console while it runs. */
    abstract boolean serveConsole();

    /** Whether the handler publishes expiry events when neither --expiry-events nor --no-expiry-events is given. */
    abstract boolean expiryEventsByDefault();

    /** Whether this run's handler publishes expiry events: the flag given, else the command's default. */
    boolean publishesExpiryEvents() {
        return expiryEvents == null ? expiryEventsByDefault() : expiryEvents;
    }

    /** Option defaults by option name, for picocli's {@code defaultValueProvider}. */
    static class Defaults implements IDefaultValueProvider {
        private final Map<String, String> values;

        Defaults(Map<String, String> values) {
            this.values = values;
        }

        @Override
        public String defaultValue(ArgSpec argSpec) {
            return argSpec instanceof OptionSpec option ? values.get(option.longestName()) : null;
        }
    }

    /**
     * A trial reads every item's execution history and every published lag once its items are done, so
     * its runtime keeps that much of the past: the defaults, sized for a runtime left running, would
     * forget a bench's first items before it reads them.
     */
    static RetentionSettings retentionFor(int trialItems) {
        RetentionSettings defaults = RetentionSettings.defaults();
        Retention closed = defaults.of(Retained.CLOSED_EXECUTIONS);
        Retention points = defaults.of(Retained.METRIC_POINTS);
        return defaults
                .with(Retained.CLOSED_EXECUTIONS, closed.withCount(Math.max(closed.count(), 2 * trialItems))
                        .withAge(TRIAL_RETENTION))
                .with(Retained.METRIC_POINTS, points.withCount(Math.max(points.count(), 8 * trialItems))
                        .withAge(TRIAL_RETENTION));
    }

    @Override
    public Integer call() throws InterruptedException {
        validate();
        ExpiryMode expiryMode = RuntimeOptions.mode(spec, mode);
        PrintWriter out = spec.commandLine().getOut();
        String table = "punctual-" + spec.name() + "-" + System.currentTimeMillis();
        ExpiryTrial.Settings settings = new ExpiryTrial.Settings(table, items, Duration.ofSeconds(spreadSeconds),
                Duration.ofSeconds(leadSeconds), GRACE, writers);
        LocalRuntime.Options options = bucketDeleteOptions.applyTo(spec, LocalRuntime.Options.onFreePorts()
                .withDataDirectory(dataDirectory).withMode(expiryMode).withQuotas(quotaOptions.quotas())
                .withEvents(publishesExpiryEvents(), 0).withRetention(retentionFor(items + warmupItems)));
        if (!json) {
            out.printf("Starting the embedded runtime (DynamoDB Local, Step Functions API, stream poller)...%n");
            out.flush();
        }
        try (LocalRuntime runtime = RuntimeStarter.start(options);
             ConsoleServer console = serveConsole() ? consoleOptions.startOnAnyPortIfDefaultTaken(runtime) : null) {
            if (console != null) {
                // With --json, stdout holds only the report.
                PrintWriter where = json ? spec.commandLine().getErr() : out;
                where.println(ConsoleOptions.line(console));
                where.flush();
            }
            faultOptions.apply(spec, runtime);
            if (!json) {
                out.printf("DynamoDB Local %s, Step Functions %s, data %s, mode %s%n", runtime.endpoints().dynamoDb(),
                        runtime.endpoints().stepFunctions(), dataDirectory == null ? "in memory" : dataDirectory, expiryMode);
                out.printf("Step Functions quotas %s%n", QuotaOptions.describe(options.quotas()));
                out.printf("Writing %d items to table %s with TTLs over %d s, starting in %d s...%n",
                        items, table, spreadSeconds, leadSeconds);
                out.flush();
            }
            if (warmupItems > 0 && !scheduleOnly) {
                warmUp(runtime, table, out);
            }
            if (scheduleOnly) {
                ScheduleReport pending;
                try (Bars bars = new Bars(items, !json && !noProgress)) {
                    pending = new ScheduleTrial(runtime).run(settings, bars);
                }
                out.println(json ? pending.toJson().replaceFirst("}$", ",\"mode\":\"" + expiryMode.label() + "\"}")
                        : System.lineSeparator() + pending.toText());
                out.flush();
                return 0;
            }
            AccuracyReport report;
            runtime.stepFunctionsEngine().resetPeakOpenExecutions();
            CostMeter.Snapshot before = runtime.observations().costs();
            try (Bars bars = new Bars(items, !json && !noProgress)) {
                report = new ExpiryTrial(runtime).run(settings, bars);
            }
            CostMeter.Snapshot cost = runtime.observations().costs().minus(before);
            if (json) {
                Map<String, String> extra = new LinkedHashMap<>();
                extra.put("mode", "\"" + expiryMode.label() + "\"");
                extra.put("cost", cost.toJson(report.deleted()));
                extra.put("metrics", PublishedMetrics.of(runtime.observations().metrics(), table).toJson());
                extra.put("faults", runtime.faults().injected().toJson());
                extra.put("timeline", report.timeline().toJson(timeline));
                out.println(report.toJson(extra));
            } else {
                out.println();
                out.println(report.toText());
                out.println(cost.toText(report.deleted()));
                out.println(PublishedMetrics.of(runtime.observations().metrics(), table).toText());
                if (runtime.faults().injected().total() > 0) {
                    out.printf("Injected faults: %d, by call site: %s%n", runtime.faults().injected().total(),
                            runtime.faults().injected().bySite());
                }
                out.println(report.timeline().toText(timeline));
                out.println(report.verdict());
            }
            out.flush();
            return report.perfect() ? 0 : 2;
        }
    }

    /** A short trial whose result is only shown, so the measured one runs on compiled code. */
    private void warmUp(LocalRuntime runtime, String table, PrintWriter out) throws InterruptedException {
        int spread = Math.max(1, warmupItems / 1000);
        ExpiryTrial.Settings settings = new ExpiryTrial.Settings(table + "-warmup", warmupItems,
                Duration.ofSeconds(spread), Duration.ofSeconds(5 + warmupItems / 500), GRACE, writers);
        if (!json) {
            out.printf("Warming up: %d items over %d s on table %s...%n", warmupItems, spread, settings.table());
            out.flush();
        }
        AccuracyReport warmup = new ExpiryTrial(runtime).run(settings, ExpiryTrial.Progress.NONE);
        if (!json) {
            out.printf("Warm-up: %d deleted, %d early, %d missed, lag p50 %d ms, p99 %d ms (not part of the report)%n",
                    warmup.deleted(), warmup.early(), warmup.missed(), warmup.lagPercentile(50), warmup.lagPercentile(99));
            out.flush();
        }
    }

    private void validate() {
        consoleOptions.check(spec);
        if (warmupItems < 0 || warmupItems > 100_000) {
            throw new ParameterException(spec.commandLine(), "--warmup-items must be 0-100000, got " + warmupItems);
        }
        if (items < 1 || items > 1_000_000) {
            throw new ParameterException(spec.commandLine(), "--items must be 1-1000000, got " + items);
        }
        if (spreadSeconds < 0 || spreadSeconds > 86_400) {
            throw new ParameterException(spec.commandLine(), "--spread must be 0-86400 seconds, got " + spreadSeconds);
        }
        if (leadSeconds < 1 || leadSeconds > 3_600) {
            throw new ParameterException(spec.commandLine(), "--lead must be 1-3600 seconds, got " + leadSeconds);
        }
        if (writers < 1 || writers > 64) {
            throw new ParameterException(spec.commandLine(), "--writers must be 1-64, got " + writers);
        }
        if (dataDirectory != null) {
            RuntimeOptions.checkDataDirectory(spec, dataDirectory);
            if (!isNewOrEmpty(dataDirectory)) {
                throw new ParameterException(spec.commandLine(), "--data-dir " + dataDirectory + " is not empty; a trial"
                        + " measures only its own items, so give it a new or empty directory");
            }
        }
    }

    private static boolean isNewOrEmpty(Path directory) {
        if (!Files.exists(directory)) {
            return true;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    /** Two progress bars on stderr, or none. */
    private static final class Bars implements ExpiryTrial.Progress, AutoCloseable {
        private final ProgressBar writing;
        private final ProgressBar expiring;

        Bars(int items, boolean show) {
            writing = show ? bar("Writing ", items) : null;
            expiring = show ? bar("Expired ", items) : null;
        }

        private static ProgressBar bar(String name, int items) {
            return new ProgressBarBuilder().setTaskName(name).setInitialMax(items).setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(100).continuousUpdate().build();
        }

        @Override
        public void written(long count) {
            if (writing != null) {
                writing.stepTo(count);
            }
        }

        @Override
        public void expired(long count) {
            if (expiring != null) {
                expiring.stepTo(count);
            }
        }

        @Override
        public void close() {
            if (writing != null) {
                writing.close();
                expiring.close();
            }
        }
    }
}
