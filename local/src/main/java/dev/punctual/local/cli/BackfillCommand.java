package dev.punctual.local.cli;

import dev.punctual.expiry.Sleeper;
import dev.punctual.functions.DynamoDbBackfillProgress;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
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
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.SfnClientBuilder;

/**
 * {@code punctual backfill}: starts the backfill workflow for a table (items written before Punctual
 * watched it) and shows its progress until it ends. The workflow, not this command, does the work: it
 * scans in parallel segments and schedules each item the way the table's mode does, and it keeps its
 * position in the progress table, so running the command again after a stop resumes, and running it
 * after a finished run scans again and schedules nothing twice.
 */
@Command(name = "backfill", mixinStandardHelpOptions = true,
        description = {
            "Start the backfill workflow for a table and follow it: a parallel Scan whose items are scheduled the way the"
                    + " table's mode schedules them (per item: an execution each; windowed: index entries and buckets)."
                    + " Resumable and idempotent: a stopped run goes on from where its segments were, and a second run"
                    + " schedules nothing twice.",
            "",
            "Local runtime (default): the runtime's backfill state machine, Step Functions at http://127.0.0.1:8083 and"
                    + " DynamoDB at http://127.0.0.1:8000, with dummy credentials; it follows the runtime's mode.",
            "AWS: pass --state-machine-arn and --progress-table from the stack's BackfillStateMachineArn and"
                    + " BackfillProgressTableName outputs; the AWS SDK's default credential chain is used, in the ARN's region."
        })
final class BackfillCommand implements Callable<Integer> {

    private static final Duration POLL_EVERY = Duration.ofMillis(500);

    @Spec
    CommandSpec spec;

    @Option(names = "--table", required = true, description = "The table to backfill.")
    String table;

    @Option(names = "--sfn-endpoint", paramLabel = "URL",
            description = "Step Functions endpoint (default: http://127.0.0.1:8083 for the local state machine, AWS otherwise).")
    URI stepFunctionsEndpoint;

    @Option(names = "--dynamodb-endpoint", paramLabel = "URL",
            description = "DynamoDB endpoint, for the progress table (default: http://127.0.0.1:8000 for the local state"
                    + " machine, AWS otherwise).")
    URI dynamoDbEndpoint;

    /** The spelling this option had before it joined the other commands' {@code --dynamodb-endpoint}. */
    @Option(names = "--endpoint", paramLabel = "URL", hidden = true,
            description = "Deprecated: use --dynamodb-endpoint.")
    URI deprecatedEndpoint;

    @Option(names = "--state-machine-arn", paramLabel = "ARN",
            description = "The backfill state machine (default: the local runtime's, ${DEFAULT-VALUE}).")
    String stateMachineArn = LocalDefaults.backfillStateMachineArn();

    @Option(names = "--progress-table", paramLabel = "NAME", defaultValue = BackfillProgressTable.LOCAL_TABLE_NAME,
            description = "The backfill progress table (default: ${DEFAULT-VALUE}).")
    String progressTable;

    @Option(names = "--ttl-attribute", paramLabel = "NAME",
            description = "The TTL attribute (default: the function's, else the one DescribeTimeToLive names).")
    String ttlAttribute;

    @Option(names = "--segments", paramLabel = "N",
            description = "Parallel Scan segments of a new run, 1-" + BackfillWorkflow.MAX_SEGMENTS + " (default: "
                    + BackfillWorkflow.DEFAULT_SEGMENTS + "); a resumed run keeps its own.")
    Integer segments;

    @Option(names = "--page-size", paramLabel = "N",
            description = "Items per Scan page, 1-" + BackfillWorkflow.MAX_PAGE_SIZE + " (default: "
                    + BackfillWorkflow.DEFAULT_PAGE_SIZE + ").")
    Integer pageSize;

    @Option(names = {"--starts-per-second", "--rate"}, paramLabel = "N",
            description = "StartExecution calls per second, all segments together, 0 for no limit (default: "
                    + "100, a third of the largest Regions' refill). --rate is the deprecated spelling.")
    Double startsPerSecond;

    @Option(names = "--restart", negatable = false,
            description = "Abandon the table's unfinished run and scan from the start.")
    boolean restart;

    /** Gone with the laptop backfill: progress lives in the progress table now. */
    @Option(names = "--progress-file", paramLabel = "FILE", hidden = true)
    String progressFile;

    @Option(names = "--no-progress", negatable = false, description = "No progress bar.")
    boolean noProgress;

    private final Sleeper sleeper;

    BackfillCommand() {
        this(Sleeper.SYSTEM);
    }

    BackfillCommand(Sleeper sleeper) {
        this.sleeper = sleeper;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (progressFile != null) {
            throw new ParameterException(spec.commandLine(), "--progress-file is gone: the backfill workflow keeps each"
                    + " segment's position in the progress table (--progress-table); run the same command again to resume");
        }
        if (deprecatedEndpoint != null) {
            if (dynamoDbEndpoint != null) {
                throw new ParameterException(spec.commandLine(), "--endpoint is the deprecated spelling of"
                        + " --dynamodb-endpoint; give one of them");
            }
            spec.commandLine().getErr().println("punctual backfill: --endpoint is deprecated; use --dynamodb-endpoint");
            dynamoDbEndpoint = deprecatedEndpoint;
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--rate")) {
            spec.commandLine().getErr().println("punctual backfill: --rate is deprecated; use --starts-per-second"
                    + " (StartExecution calls per second)");
        }
        boolean local = stateMachineArn.equals(LocalDefaults.backfillStateMachineArn());
        PrintWriter out = spec.commandLine().getOut();
        try (SfnClient sfn = stepFunctions(local);
             DynamoDbClient dynamoDb = dynamoDb(local)) {
            BackfillFollower follower = new BackfillFollower(sfn, new DynamoDbBackfillProgress(dynamoDb, progressTable),
                    stateMachineArn, sleeper, POLL_EVERY);
            String execution = follower.start(input());
            out.printf("Backfilling table %s: execution %s%n", table, execution);
            out.flush();
            BackfillFollower.Ending ending;
            try (Bar bar = new Bar(!noProgress)) {
                ending = follower.follow(table, execution, bar);
            }
            print(out, ending);
            return ending.backfilled() ? 0 : 3;
        }
    }

    /** The execution's input: the table, and only the options given, so the workflow's defaults apply to the rest. */
    private Map<String, Object> input() {
        Map<String, Object> input = new LinkedHashMap<>();
        input.put(BackfillWorkflow.TABLE, table);
        if (ttlAttribute != null) {
            input.put(BackfillWorkflow.TTL_ATTRIBUTE, ttlAttribute);
        }
        if (segments != null) {
            input.put(BackfillWorkflow.SEGMENTS, segments);
        }
        if (pageSize != null) {
            input.put(BackfillWorkflow.PAGE_SIZE, pageSize);
        }
        if (startsPerSecond != null) {
            input.put(BackfillWorkflow.STARTS_PER_SECOND, startsPerSecond);
        }
        if (restart) {
            input.put(BackfillWorkflow.RESTART, true);
        }
        return input;
    }

    private SfnClient stepFunctions(boolean local) {
        if (local) {
            return LocalClients.stepFunctions(stepFunctionsEndpoint != null ? stepFunctionsEndpoint
                    : LocalDefaults.endpoint(LocalDefaults.STEP_FUNCTIONS_PORT));
        }
        SfnClientBuilder builder = SfnClient.builder().httpClientBuilder(Apache5HttpClient.builder())
                .credentialsProvider(DefaultCredentialsProvider.builder().build()).region(regionOf(stateMachineArn));
        if (stepFunctionsEndpoint != null) {
            builder.endpointOverride(stepFunctionsEndpoint);
        }
        return builder.build();
    }

    private DynamoDbClient dynamoDb(boolean local) {
        if (local) {
            return LocalClients.dynamoDb(dynamoDbEndpoint != null ? dynamoDbEndpoint
                    : LocalDefaults.endpoint(LocalDefaults.DYNAMODB_PORT));
        }
        DynamoDbClientBuilder builder = DynamoDbClient.builder().httpClientBuilder(Apache5HttpClient.builder())
                .credentialsProvider(DefaultCredentialsProvider.builder().build()).region(regionOf(stateMachineArn));
        if (dynamoDbEndpoint != null) {
            builder.endpointOverride(dynamoDbEndpoint);
        }
        return builder.build();
    }

    private Region regionOf(String arn) {
        String[] parts = arn.split(":");
        if (parts.length < 7 || !parts[0].equals("arn") || !parts[5].equals("stateMachine")) {
            throw new ParameterException(spec.commandLine(), "--state-machine-arn " + arn + " is not a state machine ARN"
                    + " (arn:<partition>:states:<region>:<account>:stateMachine:<name>)");
        }
        return Region.of(parts[3]);
    }

    private static void print(PrintWriter out, BackfillFollower.Ending ending) {
        BackfillFollower.Snapshot last = ending.last();
        last.run().ifPresent(run -> out.printf("Run              %s (%s mode, %d segments, TTL attribute %s)%n", run.id(),
                run.mode(), run.segments(), run.ttlAttribute()));
        out.printf("Segments done    %d%s%n", last.segmentsDone(), last.run().map(run -> " of " + run.segments()).orElse(""));
        out.printf("Scanned          %d%n", last.counts().scanned());
        out.printf("Scheduled        %d%n", last.counts().scheduled());
        out.printf("Deleted now      %d   (TTL already passed)%n", last.counts().deletedNow());
        out.printf("Skipped          %d   (no TTL, a TTL native TTL ignores, or changed since the scan; see the function's log)%n",
                last.counts().skipped());
        if (ending.backfilled()) {
            out.printf("Backfilled: %s%n", ending.executionArn());
        } else {
            out.printf("The backfill execution %s ended %s%s%s; run the same command again to resume from where its"
                    + " segments were.%n", ending.executionArn(), ending.status(),
                    ending.error() == null ? "" : ": " + ending.error(), ending.cause() == null ? "" : " (" + ending.cause() + ")");
        }
        out.flush();
    }

    /** A progress bar on stderr over the segments, with the counts beside it; or nothing. */
    private static final class Bar implements BackfillFollower.Listener, AutoCloseable {
        private final boolean show;
        private ProgressBar bar;

        Bar(boolean show) {
            this.show = show;
        }

        @Override
        public void progressed(BackfillFollower.Snapshot snapshot) {
            if (!show || snapshot.run().isEmpty()) {
                return;
            }
            if (bar == null) {
                bar = new ProgressBarBuilder().setTaskName("Segments").setInitialMax(snapshot.run().get().segments())
                        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(100).continuousUpdate().build();
            }
            bar.stepTo(snapshot.segmentsDone());
            bar.setExtraMessage(String.format(" scanned %d, scheduled %d, deleted now %d, skipped %d",
                    snapshot.counts().scanned(), snapshot.counts().scheduled(), snapshot.counts().deletedNow(),
                    snapshot.counts().skipped()));
        }

        @Override
        public void close() {
            if (bar != null) {
                bar.close();
            }
        }
    }
}
