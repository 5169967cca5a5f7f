package dev.punctual.local.cli;

import dev.punctual.backfill.Backfill;
import dev.punctual.backfill.BackfillListener;
import dev.punctual.backfill.BackfillOptions;
import dev.punctual.backfill.BackfillSummary;
import dev.punctual.expiry.Sleeper;
import dev.punctual.functions.ExpirySettings;
import dev.punctual.functions.SfnExecutions;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.statemachine.StreamWiring;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * {@code punctual backfill}: schedules the items a table already holds (written before Punctual
 * watched it), with the same rules and execution names as the stream handler, so running it twice or
 * beside the live stream starts nothing twice.
 */
@Command(name = "backfill", mixinStandardHelpOptions = true,
        description = {
            "Schedule expiry for the items a table already holds: a parallel, projected Scan that starts one "
                    + "execution per item with a TTL. Idempotent: a second run starts nothing twice.",
            "",
            "Local runtime (default): with the local state machine ARN, DynamoDB defaults to http://127.0.0.1:8000 "
                    + "and Step Functions to http://127.0.0.1:8083, with dummy credentials.",
            "AWS: pass --state-machine-arn of your deployed state machine and no endpoints; the AWS SDK's default "
                    + "credential chain (environment, profile, SSO, instance role...) is used, in the ARN's region."
        })
final class BackfillCommand implements Callable<Integer> {

    private static final URI LOCAL_DYNAMODB = LocalDefaults.endpoint(LocalDefaults.DYNAMODB_PORT);
    private static final URI LOCAL_STEP_FUNCTIONS = LocalDefaults.endpoint(LocalDefaults.STEP_FUNCTIONS_PORT);

    @Spec
    CommandSpec spec;

    @Option(names = "--table", required = true, description = "The table to backfill.")
    String table;

    @Option(names = "--endpoint", paramLabel = "URL",
            description = "DynamoDB endpoint (default: http://127.0.0.1:8000 for the local state machine, AWS otherwise).")
    URI dynamoDbEndpoint;

    @Option(names = "--sfn-endpoint", paramLabel = "URL",
            description = "Step Functions endpoint (default: http://127.0.0.1:8083 for the local state machine, AWS otherwise).")
    URI stepFunctionsEndpoint;

    @Option(names = "--state-machine-arn", paramLabel = "ARN",
            description = "The expire-item state machine (default: the local runtime's, ${DEFAULT-VALUE}).")
    String stateMachineArn = LocalDefaults.stateMachineArn();

    @Option(names = "--ttl-attribute", paramLabel = "NAME",
            description = "The TTL attribute (default: the one DescribeTimeToLive names).")
    String ttlAttribute;

    @Option(names = "--segments", description = "Parallel Scan segments, 1-1000 (default: ${DEFAULT-VALUE}).", defaultValue = "4")
    int segments;

    @Option(names = "--rate", paramLabel = "ITEMS_PER_SECOND",
            description = "Items per second over all segments, 0 for no limit (default: ${DEFAULT-VALUE}). "
                    + "Keep it under the StartExecution quota (about 300/s refill in large regions).",
            defaultValue = "0")
    double rate;

    @Option(names = "--progress-file", paramLabel = "FILE",
            description = "Save progress here after every page and resume from it when run again.")
    Path progressFile;

    @Option(names = "--no-progress", negatable = false, description = "No progress bar.")
    boolean noProgress;

    @Override
    public Integer call() throws Exception {
        if (rate < 0) {
            throw new ParameterException(spec.commandLine(), "--rate must be 0 (no limit) or more, got " + rate);
        }
        boolean local = stateMachineArn.equals(LocalDefaults.stateMachineArn());
        URI dynamoDbUri = dynamoDbEndpoint != null ? dynamoDbEndpoint : local ? LOCAL_DYNAMODB : null;
        URI sfnUri = stepFunctionsEndpoint != null ? stepFunctionsEndpoint : local ? LOCAL_STEP_FUNCTIONS : null;
        PrintWriter out = spec.commandLine().getOut();
        try (DynamoDbClient dynamoDb = dynamoDb(local, dynamoDbUri)) {
            String attribute = ttlAttribute != null ? ttlAttribute : ttlAttributeOf(dynamoDb);
            Map<String, String> environment = new HashMap<>(local ? Map.of() : System.getenv());
            environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn);
            environment.put(StreamWiring.ENV_TTL_ATTRIBUTE, attribute);
            if (sfnUri != null) {
                environment.put(StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, sfnUri.toString());
            }
            BackfillOptions options;
            try {
                options = new BackfillOptions(table, attribute, segments, rate, 0, progressFile);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            out.printf("Backfilling table %s (TTL attribute %s) with %d segment(s) into %s%n", table, attribute, segments,
                    stateMachineArn);
            out.flush();
            BackfillSummary summary;
            try (SfnExecutions executions = SfnExecutions.create(ExpirySettings.fromEnvironment(environment));
                 Bar bar = new Bar(!noProgress)) {
                summary = new Backfill(dynamoDb, executions, Clock.systemUTC(), Sleeper.SYSTEM).run(options, bar);
            }
            print(out, summary);
            return summary.failed() == 0 ? 0 : 3;
        }
    }

    private DynamoDbClient dynamoDb(boolean local, URI endpoint) {
        if (local && endpoint != null) {
            return LocalClients.dynamoDb(endpoint);
        }
        String region = ExpirySettings.fromEnvironment(Map.of(StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn,
                StreamWiring.ENV_TTL_ATTRIBUTE, "ttl")).region();
        DynamoDbClientBuilder builder = DynamoDbClient.builder()
                .httpClientBuilder(Apache5HttpClient.builder())
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .region(Region.of(region));
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        return builder.build();
    }

    private String ttlAttributeOf(DynamoDbClient dynamoDb) {
        TimeToLiveDescription ttl = dynamoDb.describeTimeToLive(r -> r.tableName(table)).timeToLiveDescription();
        if (ttl == null || ttl.attributeName() == null
                || ttl.timeToLiveStatus() != TimeToLiveStatus.ENABLED && ttl.timeToLiveStatus() != TimeToLiveStatus.ENABLING) {
            throw new ParameterException(spec.commandLine(), "Table " + table + " has no TTL enabled"
                    + " (DescribeTimeToLive: " + (ttl == null ? "nothing" : ttl.timeToLiveStatusAsString())
                    + "); enable TTL on it or pass --ttl-attribute");
        }
        return ttl.attributeName();
    }

    private static void print(PrintWriter out, BackfillSummary summary) {
        out.printf("Scanned          %d%n", summary.scanned());
        out.printf("Scheduled        %d%n", summary.scheduled());
        out.printf("Already pending  %d%n", summary.alreadyPending());
        out.printf("Ignored          %d%n", summary.ignoredTotal());
        summary.ignored().forEach((reason, count) -> out.printf("  %-28s %d%n", reason, count));
        out.printf("Failed           %d%s%n", summary.failed(), summary.failed() == 0 ? "" : "  (run the backfill again to retry them)");
        out.flush();
    }

    /** A progress bar on stderr over the scanned items, or nothing. */
    private static final class Bar implements BackfillListener, AutoCloseable {
        private final boolean show;
        private ProgressBar bar;

        Bar(boolean show) {
            this.show = show;
        }

        @Override
        public synchronized void started(long estimatedItems) {
            if (show) {
                bar = new ProgressBarBuilder().setTaskName("Scanned ").setInitialMax(estimatedItems > 0 ? estimatedItems : -1)
                        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(100).continuousUpdate().build();
            }
        }

        @Override
        public synchronized void progressed(BackfillSummary soFar) {
            if (bar != null) {
                if (bar.getMax() > 0 && soFar.scanned() > bar.getMax()) {
                    bar.maxHint(soFar.scanned());
                }
                bar.stepTo(soFar.scanned());
            }
        }

        @Override
        public synchronized void close() {
            if (bar != null) {
                bar.close();
            }
        }
    }
}
