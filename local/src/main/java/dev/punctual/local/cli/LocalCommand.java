package dev.punctual.local.cli;

import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.runtime.AttachedRuntime;
import dev.punctual.local.runtime.ExternalServices;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.Recovery;
import dev.punctual.statemachine.ExpiryMode;
import java.io.PrintWriter;
import java.net.URI;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code punctual local}: runs the embedded runtime until interrupted; or, with {@code --dynamodb-endpoint}
 * and {@code --sfn-endpoint}, attaches Punctual's stream poller and handler to services someone else runs
 * (LocalStack, moto), whose Step Functions then runs the expire-item machine ({@link AttachedRuntime}).
 */
@Command(name = "local", mixinStandardHelpOptions = true,
        description = "Run DynamoDB Local, the Step Functions API and the stream poller with the real handler, until Ctrl-C;"
                + " with --dynamodb-endpoint and --sfn-endpoint, run only the poller and the handler against those services.")
final class LocalCommand implements Callable<Integer> {

    /** Options that configure a part Punctual does not start when attached: each is refused there. */
    private static final List<String> OWN_PARTS_ONLY = List.of("--dynamodb-port", "--sfn-port", "--events-port",
            "--no-expiry-events", "--console-port", "--aws-quotas", "--quota", "--dynamodb-fault", "--lambda-fault");

    @Spec
    CommandSpec spec;

    @Mixin
    RuntimeOptions runtimeOptions;

    @Mixin
    QuotaOptions quotaOptions;

    @Mixin
    ConsoleOptions consoleOptions;

    @Mixin
    RetentionOptions retentionOptions;

    @Option(names = "--dynamodb-port", description = "DynamoDB Local port on 127.0.0.1 (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + LocalDefaults.DYNAMODB_PORT)
    int dynamoDbPort;

    @Option(names = "--sfn-port", description = "Step Functions API port on 127.0.0.1 (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + LocalDefaults.STEP_FUNCTIONS_PORT)
    int stepFunctionsPort;

    @Option(names = "--events-port", description = "EventBridge endpoint port on 127.0.0.1, for expiry events (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + LocalDefaults.EVENTS_PORT)
    int eventsPort;

    @Option(names = "--no-expiry-events", negatable = false,
            description = "Do not publish ItemExpired events (on by default locally; opt-in in AWS).")
    boolean noExpiryEvents;

    @Option(names = "--dynamodb-endpoint", paramLabel = "URL",
            description = "Attach to this DynamoDB and its stream (LocalStack, moto) instead of starting DynamoDB Local;"
                    + " needs --sfn-endpoint. Per-item mode only.")
    URI dynamoDbEndpoint;

    @Option(names = "--sfn-endpoint", paramLabel = "URL",
            description = "Attach to this Step Functions (LocalStack, moto) instead of starting the engine: the expire-item"
                    + " machine is created (or updated) there and runs there; needs --dynamodb-endpoint. Per-item mode only.")
    URI stepFunctionsEndpoint;

    @Option(names = "--quiet", description = "Do not print the handler's decision lines (one JSON line per stream record, as in Lambda).")
    boolean quiet;

    @Override
    public Integer call() throws InterruptedException {
        if (!quiet) {
            CliLogging.showPunctualActivity();
        }
        if (dynamoDbEndpoint != null || stepFunctionsEndpoint != null) {
            return attach();
        }
        consoleOptions.check(spec);
        LocalRuntime.Options options = runtimeOptions.toRuntimeOptions(spec, dynamoDbPort, stepFunctionsPort)
                .withQuotas(quotaOptions.quotas())
                .withRetention(retentionOptions.retention())
                .withEvents(!noExpiryEvents, RuntimeOptions.checkPort(spec, "--events-port", eventsPort));
        PrintWriter out = spec.commandLine().getOut();
        CountDownLatch stopped = new CountDownLatch(1);
        LocalRuntime runtime = RuntimeStarter.start(options);
        ConsoleServer console;
        try {
            runtimeOptions.applyFaults(spec, runtime);
            console = consoleOptions.start(runtime);
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
        Thread hook = new Thread(() -> {
            console.close();
            runtime.close();
            stopped.countDown();
        }, "punctual-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.printf("DynamoDB Local      %s   (started in %d ms)%n", runtime.endpoints().dynamoDb(), runtime.observations().dynamoDbStartTime().toMillis());
        out.printf("Step Functions API  %s%n", runtime.endpoints().stepFunctions());
        out.printf("EventBridge         %s   (%s)%n", runtime.endpoints().events(), options.expiryEvents()
                ? "ItemExpired events on bus " + LocalDefaults.EVENT_BUS + "; watch them with: punctual events --follow"
                        + (runtime.endpoints().events().getPort() == LocalDefaults.EVENTS_PORT ? "" : " --events-endpoint " + runtime.endpoints().events())
                : "expiry events off (--no-expiry-events)");
        out.println(ConsoleOptions.line(console));
        out.printf("Mode                %s%n", options.mode());
        out.printf("State machine       %s%n", runtime.mode().stateMachineArn());
        runtime.mode().facts().forEach((label, value) -> out.printf("%-20s%s%n", label, value));
        out.printf("Quotas              %s%n", QuotaOptions.describe(options.quotas()));
        out.printf("Keeping             %s%n", RetentionOptions.describe(options.retention()));
        if (!runtimeOptions.faults.describe().isEmpty()) {
            out.printf("Injected faults     %s (each logged as it happens)%n", runtimeOptions.faults.describe());
        }
        out.printf("Data                %s%n", options.dataDirectory() == null ? "in memory" : options.dataDirectory().toAbsolutePath());
        Recovery recovery = runtime.stepFunctionsEngine().recovery();
        if (recovery.executionsResumed() > 0 || recovery.recordsReplayed() > 0) {
            out.printf("Recovered           %d pending executions in %d ms%n", recovery.executionsResumed(),
                    recovery.duration().toMillis());
        }
        out.printf("Watching            %s%n", options.tables().isEmpty()
                ? "every table with a stream and TTL enabled (checked every second)" : String.join(", ", options.tables()));
        out.println("Punctual local runtime ready. Ctrl-C to stop.");
        out.flush();
        stopped.await();
        return 0;
    }

    /** Attached to external services: the poller and the handler run here, the state machine there. */
    private int attach() throws InterruptedException {
        if (dynamoDbEndpoint == null || stepFunctionsEndpoint == null) {
            throw new ParameterException(spec.commandLine(), "--dynamodb-endpoint and --sfn-endpoint go together: the"
                    + " attached Step Functions deletes from the attached DynamoDB, so give both (or neither, to run"
                    + " Punctual's own)");
        }
        List<String> ownPartsOnly = OWN_PARTS_ONLY.stream()
                .filter(spec.commandLine().getParseResult()::hasMatchedOption).toList();
        if (!ownPartsOnly.isEmpty()) {
            throw new ParameterException(spec.commandLine(), String.join(", ", ownPartsOnly) + " configure"
                    + (ownPartsOnly.size() == 1 ? "s" : "") + " Punctual's own DynamoDB Local, engine, EventBridge endpoint"
                    + " or console, none of which starts when attached to --dynamodb-endpoint and --sfn-endpoint");
        }
        LocalRuntime.Options options = runtimeOptions.toRuntimeOptions(spec, 0, 0)
                .attachedTo(new ExternalServices(dynamoDbEndpoint, stepFunctionsEndpoint));
        if (options.mode() != ExpiryMode.PER_ITEM) {
            throw new ParameterException(spec.commandLine(), "--mode " + options.mode().label() + ": "
                    + AttachedRuntime.WINDOWED_NEEDS_LAMBDA);
        }
        PrintWriter out = spec.commandLine().getOut();
        CountDownLatch stopped = new CountDownLatch(1);
        AttachedRuntime runtime = AttachedRuntime.start(options);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            runtime.close();
            stopped.countDown();
        }, "punctual-shutdown"));
        out.printf("Attached DynamoDB   %s   (DynamoDB and its stream; no DynamoDB Local started)%n", dynamoDbEndpoint);
        out.printf("Attached Sfn        %s   (runs the state machine; no engine started)%n", stepFunctionsEndpoint);
        out.printf("Mode                %s%n", options.mode());
        out.printf("State machine       %s   (%s from expire-item.asl.json)%n", runtime.stateMachineArn(),
                runtime.deployment() == AttachedRuntime.Deployment.CREATED ? "created" : "updated");
        out.printf("%-20s%s%n", "Console", "not started (it reads Punctual's own engine)");
        out.printf("%-20s%s%n", "Expiry events", "off (no EventBridge endpoint of Punctual's when attached)");
        out.printf("Data                %s%n", options.dataDirectory() == null ? "in memory (stream checkpoints)"
                : options.dataDirectory().toAbsolutePath() + " (stream checkpoints)");
        out.printf("Watching            %s%n", options.tables().isEmpty()
                ? "every table with a stream and TTL enabled (checked every second)" : String.join(", ", options.tables()));
        out.println("Punctual attached and ready. Ctrl-C to stop.");
        out.flush();
        stopped.await();
        return 0;
    }
}
