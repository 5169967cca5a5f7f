package dev.punctual.local.cli;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Options every command that starts the embedded runtime shares. */
final class RuntimeOptions {

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Keep tables, stream checkpoints, dead letters and executions here, so they survive restarts (default: in memory).")
    Path dataDirectory;

    @Option(names = "--table", paramLabel = "NAME",
            description = "Only watch this table (repeatable; default: every table with a stream and TTL enabled).")
    List<String> tables = List.of();

    @Option(names = "--no-cancel-stale", negatable = false,
            description = "Do not stop executions made stale by a TTL change or a delete (they are harmless: the delete is conditional).")
    boolean noCancelStale;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "per-item",
            description = "per-item: one execution per item, each visible in the console; windowed: items indexed into"
                    + " time buckets, one execution per non-empty bucket, for cost and scale (default: ${DEFAULT-VALUE}).")
    String mode;

    @Mixin
    FaultOptions faults;

    @Mixin
    BucketDeleteOptions bucketDeletes;

    LocalRuntime.Options toRuntimeOptions(CommandSpec spec, int dynamoDbPort, int stepFunctionsPort) {
        checkPort(spec, "--dynamodb-port", dynamoDbPort);
        checkPort(spec, "--sfn-port", stepFunctionsPort);
        if (dataDirectory != null) {
            checkDataDirectory(spec, dataDirectory);
        }
        return bucketDeletes.applyTo(spec, LocalRuntime.Options.defaults()
                .withPorts(dynamoDbPort, stepFunctionsPort)
                .withDataDirectory(dataDirectory)
                .withTables(new LinkedHashSet<>(tables))
                .withCancelStale(!noCancelStale)
                .withMode(mode(spec, mode)));
    }

    void applyFaults(CommandSpec spec, LocalRuntime runtime) {
        faults.apply(spec, runtime);
    }

    /** The mode a {@code --mode} value names, or a usage error listing the modes. */
    static ExpiryMode mode(CommandSpec spec, String value) {
        try {
            return ExpiryMode.fromLabel(value);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--mode: " + e.getMessage());
        }
    }

    static int checkPort(CommandSpec spec, String option, int port) {
        if (port < 0 || port > 65_535) {
            throw new ParameterException(spec.commandLine(), option + " must be 0-65535 (0 picks a free port), got " + port);
        }
        return port;
    }

    static void checkDataDirectory(CommandSpec spec, Path directory) {
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw new ParameterException(spec.commandLine(), "--data-dir " + directory + " exists and is not a directory");
        }
        Path existing = directory.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null || !Files.isWritable(existing) || !Files.isReadable(existing)) {
            throw new ParameterException(spec.commandLine(), "--data-dir " + directory
                    + " cannot be read and written by this user" + (existing == null ? "" : " (checked " + existing + ")"));
        }
    }
}
