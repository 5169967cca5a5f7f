package dev.punctual.local.cli;

import dev.punctual.local.measure.BulkImportReport;
import dev.punctual.local.measure.BulkImportTrial;
import dev.punctual.local.measure.ExpiryTrial;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code punctual bulk-import}: the scenario that shows why both modes exist. A bulk import of items
 * due over the next day, then a few hundred items due a minute or two after it: with
 * {@code --aws-quotas}, per-item mode needs one StartExecution per imported item and the StartExecution
 * bucket makes the later items wait behind the import; windowed mode needs one per bucket.
 */
@Command(name = "bulk-import", mixinStandardHelpOptions = true,
        description = "Bulk-import N items due over the next day, then items due a minute or two later; report how late those expire.")
final class BulkImportCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "per-item",
            description = "per-item or windowed (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--items", defaultValue = "100000", description = "Items in the import (default: ${DEFAULT-VALUE}).")
    int items;

    @Option(names = "--late-items", defaultValue = "600",
            description = "Items written after the import, due over 60 s from --late-after (default: ${DEFAULT-VALUE}).")
    int lateItems;

    @Option(names = "--late-after", paramLabel = "SECONDS", defaultValue = "60",
            description = "Seconds from the import's last write to the first late item's TTL (default: ${DEFAULT-VALUE}).")
    int lateAfter;

    @Option(names = "--writers", defaultValue = "8", description = "Concurrent writers (default: ${DEFAULT-VALUE}).")
    int writers;

    @Mixin
    QuotaOptions quotaOptions;

    @Mixin
    BucketDeleteOptions bucketDeleteOptions;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Override
    public Integer call() throws InterruptedException {
        if (items < 1 || items > 1_000_000) {
            throw new ParameterException(spec.commandLine(), "--items must be 1-1000000, got " + items);
        }
        if (lateItems < 1 || lateItems > 10_000) {
            throw new ParameterException(spec.commandLine(), "--late-items must be 1-10000, got " + lateItems);
        }
        if (lateAfter < 1 || lateAfter > 3_600) {
            throw new ParameterException(spec.commandLine(), "--late-after must be 1-3600 seconds, got " + lateAfter);
        }
        if (writers < 1 || writers > 64) {
            throw new ParameterException(spec.commandLine(), "--writers must be 1-64, got " + writers);
        }
        ExpiryMode expiryMode = RuntimeOptions.mode(spec, mode);
        PrintWriter out = spec.commandLine().getOut();
        LocalRuntime.Options options = bucketDeleteOptions.applyTo(spec,
                LocalRuntime.Options.onFreePorts().withMode(expiryMode).withQuotas(quotaOptions.quotas()));
        String table = "punctual-import-" + System.currentTimeMillis();
        try (LocalRuntime runtime = RuntimeStarter.start(options)) {
            if (!json) {
                out.printf("Mode %s, Step Functions quotas %s%n", expiryMode, QuotaOptions.describe(options.quotas()));
                out.printf("Importing %d items due over the next day into %s, then %d items due %d-%d s later...%n",
                        items, table, lateItems, lateAfter, lateAfter + 60);
                out.flush();
            }
            BulkImportReport report = new BulkImportTrial(runtime)
                    .run(table, items, lateItems, Duration.ofSeconds(lateAfter), writers, ExpiryTrial.Progress.NONE);
            out.println(json ? report.toJson().replaceFirst("}$", ",\"mode\":\"" + expiryMode.label() + "\",\"awsQuotas\":"
                    + options.quotas().ratesEnforced() + "}") : report.toText());
            out.flush();
            return report.early() == 0 ? 0 : 2;
        }
    }
}
