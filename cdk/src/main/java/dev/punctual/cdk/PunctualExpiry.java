package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StreamWiring;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.TagProps;
import software.amazon.awscdk.Tags;
import software.amazon.awscdk.Token;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.dynamodb.CfnTable;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableAttributes;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.StartingPosition;
import software.amazon.awscdk.services.lambda.eventsources.DynamoEventSource;
import software.amazon.awscdk.services.lambda.eventsources.DynamoEventSourceProps;
import software.amazon.awscdk.services.lambda.eventsources.SqsDlq;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.constructs.Construct;

/**
 * Second-accurate expiry for one DynamoDB table: the table's stream feeds a SnapStart Java function
 * that starts one Step Functions Standard execution per item with a TTL; the execution waits until
 * the TTL and deletes the item only if its TTL is unchanged. Native TTL stays the backstop.
 *
 * <p>In {@link ExpiryMode#WINDOWED windowed mode} the function instead writes each item into a schedule
 * index table ({@link ScheduleIndexTable}) and starts one {@code expire-bucket} execution per non-empty
 * time bucket; when the bucket is due, the execution invokes a second function, the bucket function,
 * which deletes the bucket's items (each only if its TTL is unchanged) or cascades a coarse bucket into
 * finer ones. The {@code expire-item} state machine is not created then: nothing would start it.
 *
 * <p>This class wires what every mode shares (the stream function, its role and event source mapping,
 * the dead-letter queue); the mode's own resources come from {@link ModeResources}, the backfill of the
 * items a table already holds from {@link BackfillResources}, the alarms and the dashboard from
 * {@link ExpiryObservability}.
 *
 * <p>Named after what it adds to a table (punctual expiry), not "TTL": the table keeps its native TTL,
 * this construct only makes deletion happen on time.
 */
public final class PunctualExpiry extends Construct {

    /** The function's handler, written by the functions module. */
    public static final String HANDLER = "dev.punctual.functions.ExpiryStreamHandler::handleRequest";

    /** Powertools service name on every log line of the function. */
    public static final String SERVICE_NAME = "punctual";

    /**
     * Lambda gives CPU in proportion to memory (one vCPU at 1,769 MB). 1,024 MB (~0.6 vCPU) is where
     * a Java function's first invocations after a SnapStart restore stop being CPU-bound on JIT
     * compilation and TLS set-up; the work itself (a batch of small HTTPS calls) needs little heap.
     */
    public static final int MEMORY_MB = StreamWiring.STREAM_FUNCTION_MEMORY_MB;

    /**
     * A batch at the maximum size (10,000 records) needs about 34 s of StartExecution calls at the
     * 300-per-second refill of the largest Regions' throttle bucket; two minutes leaves room for the SDK's
     * throttling back-off and a cold restore. A timed-out batch is retried whole, which the handler
     * tolerates (idempotent starts), but it wastes the batch's work, so the limit errs long.
     */
    public static final Duration TIMEOUT = Duration.seconds(StreamWiring.FUNCTION_TIMEOUT.toSeconds());

    /**
     * C1 only: the function's work is short bursts of I/O, where C2's later, better code never pays
     * back the CPU its compiler threads take from a fraction of a vCPU; AWS's Java cold-start guidance
     * recommends this for such functions. With SnapStart it still keeps post-restore compilation cheap.
     */
    public static final String JAVA_TOOL_OPTIONS = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1";

    /** The alias the event source mapping invokes, so it always runs a published (SnapStart) version. */
    public static final String ALIAS_NAME = "live";

    /** Windowed mode: the bucket function's handler, in the same jar as {@link #HANDLER}. */
    public static final String BUCKET_HANDLER = "dev.punctual.functions.BucketFunction::handleRequest";

    /** Windowed mode: the bucket function's memory; see {@link StreamWiring#BUCKET_FUNCTION_MEMORY_MB}. */
    public static final int BUCKET_MEMORY_MB = StreamWiring.BUCKET_FUNCTION_MEMORY_MB;

    /**
     * Windowed mode: the bucket function's timeout, 15 s under the runner's {@code Step} Task's
     * {@code TimeoutSeconds} (255) in {@code run-bucket.asl.json}. The Task's clock also runs through
     * the invoke and the SnapStart restore (at most 10 s), which the function's does not, so the
     * function's own timeout fires first: the Task then sees one failed invoke and retries it, instead of
     * timing out and retrying while the first invocation still runs. Four minutes still leaves a bucket
     * far larger than the few thousand items one invocation is sized for time to finish.
     */
    public static final Duration BUCKET_TIMEOUT = Duration.seconds(240);

    /**
     * Appended to the bucket state machine's name so it never equals the name the {@code expire-item}
     * machine has in per-item mode: switching a deployed construct's mode creates the new machine before
     * CloudFormation deletes the old one, and two machines cannot share a name.
     */
    public static final String BUCKET_STATE_MACHINE_SUFFIX = "-bucket";

    /** Appended to the bucket runner's (Express) state machine name, apart from the bucket machine's. */
    public static final String BUCKET_RUNNER_STATE_MACHINE_SUFFIX = "-bucket-runner";

    /**
     * Tag on every resource the construct creates but its dashboard, holding {@link PunctualVersion#current()}:
     * the same version the function puts on its log lines as {@code punctualVersion} and
     * {@code punctual --version} prints, so a deployed stack says which Punctual it runs.
     */
    public static final String VERSION_TAG = "punctual:version";

    /** The function is this far behind its stream: items due sooner than this after a write expire late. */
    public static final Duration ITERATOR_AGE_ALARM = Duration.seconds(60);

    private static final Pattern STREAM_ARN =
            Pattern.compile("arn:[a-z0-9-]+:dynamodb:[a-z0-9-]+:\\d{12}:table/([A-Za-z0-9_.-]{3,255})/stream/\\S+");

    private final ExpiryMode mode;
    private final ModeResources resources;
    private final LogGroup functionLogs;
    private final LogGroup stateMachineLogs;
    private final Role functionRole;
    private final Function function;
    private final Alias alias;
    private final Queue deadLetterQueue;
    private final ExpiryAlarms alarms;
    private final Dashboard dashboard;
    private final BackfillResources backfill;

    public PunctualExpiry(Construct scope, String id, PunctualExpiryProps props) {
        super(scope, id);
        this.mode = props.mode();
        requireStream(props.table(), props.cancelStale());
        this.functionLogs = LogGroup.Builder.create(this, "FunctionLogs").retention(props.logRetention()).build();
        ResourceFactory factory = new ResourceFactory(this, props);
        this.stateMachineLogs = factory.stateMachineLogs();
        this.resources = ModeResources.create(mode, factory);
        this.deadLetterQueue = createDeadLetterQueue();
        this.functionRole = createFunctionRole(props, factory);
        this.function = factory.function("Function", resources.descriptions().function(), HANDLER, MEMORY_MB, TIMEOUT,
                functionRole, functionLogs, functionEnvironment(props));
        this.alias = factory.publish(function, "LiveAlias",
                "the stream invokes the '" + ALIAS_NAME + "' alias of the current version");
        alias.addEventSource(createEventSource(props));
        this.backfill = new BackfillResources(this, "Backfill", factory);
        ExpiryObservability observability = new ExpiryObservability(this, props, resources, function, deadLetterQueue);
        this.alarms = observability.createAlarms();
        this.dashboard = observability.createDashboard();
        // Not the dashboard: tags on AWS::CloudWatch::Dashboard are new and not in every Region's CloudFormation
        // schema yet (cfn-lint 1.51's us-east-1 schema has none), and an unknown property fails a deployment.
        Tags.of(this).add(VERSION_TAG, PunctualVersion.current(), TagProps.builder()
                .excludeResourceTypes(List.of("AWS::CloudWatch::Dashboard")).build());
        NagSuppressionsForExpiry.apply(this, props);
    }

    /**
     * A table this app does not manage, by name and stream ARN (the stream must already be enabled,
     * with NEW_AND_OLD_IMAGES).
     *
     * @throws IllegalArgumentException when the stream ARN is missing, malformed or names another table
     */
    public static ITable importTable(Construct scope, String id, String tableName, String tableStreamArn) {
        if (tableName == null || tableName.isBlank()) {
            throw new IllegalArgumentException("tableName is required to attach Punctual to an existing table");
        }
        if (tableStreamArn == null || tableStreamArn.isBlank()) {
            throw new IllegalArgumentException("Table " + tableName + " needs its stream ARN (tableStreamArn): "
                    + "enable a NEW_AND_OLD_IMAGES stream and pass the LatestStreamArn from "
                    + "`aws dynamodb describe-table --table-name " + tableName + "`");
        }
        if (!Token.isUnresolved(tableStreamArn)) {
            Matcher matcher = STREAM_ARN.matcher(tableStreamArn);
            if (!matcher.matches()) {
                throw new IllegalArgumentException("'" + tableStreamArn + "' is not a DynamoDB stream ARN "
                        + "(arn:<partition>:dynamodb:<region>:<account>:table/<name>/stream/<label>)");
            }
            if (!Token.isUnresolved(tableName) && !matcher.group(1).equals(tableName)) {
                throw new IllegalArgumentException("Stream ARN " + tableStreamArn + " belongs to table "
                        + matcher.group(1) + ", not " + tableName);
            }
        }
        return Table.fromTableAttributes(scope, id, TableAttributes.builder()
                .tableName(tableName).tableStreamArn(tableStreamArn).build());
    }

    /** How this construct schedules expirations. */
    public ExpiryMode mode() {
        return mode;
    }

    /**
     * The state machine whose executions delete items: {@code expire-item} per item, {@code expire-bucket}
     * in windowed mode (the only one each mode creates).
     */
    public StateMachine stateMachine() {
        return resources.stateMachine();
    }

    /** The state machine's name, fixed at synthesis and unique per stack. */
    public String stateMachineName() {
        return resources.identity().name();
    }

    /** The stream handler function (its {@link #alias()} is what the stream invokes). */
    public Function function() {
        return function;
    }

    /** The alias of the published SnapStart version that the event source mapping invokes. */
    public Alias alias() {
        return alias;
    }

    /** Where the event source mapping sends records it gave up on (batch metadata, not item images). */
    public Queue deadLetterQueue() {
        return deadLetterQueue;
    }

    /** The backfill workflow, its function and progress table, and the run started on first deployment. */
    public BackfillResources backfill() {
        return backfill;
    }

    /** The construct's alarms. */
    public ExpiryAlarms alarms() {
        return alarms;
    }

    /** The CloudWatch dashboard: expiry lag p50/p99, backstop wins, iterator age, executions, dead letters. */
    public Dashboard dashboard() {
        return dashboard;
    }

    /** The function's log group. */
    public LogGroup functionLogs() {
        return functionLogs;
    }

    /** The state machine's log group (ERROR level, no execution data). */
    public LogGroup stateMachineLogs() {
        return stateMachineLogs;
    }

    /** Windowed mode: the schedule index table (which item expires in which second). Empty per item. */
    public Optional<Table> scheduleIndex() {
        return windowed().map(WindowedResources::scheduleIndex);
    }

    /** Windowed mode: the bucket function (its {@link #bucketAlias()} is what executions invoke). */
    public Optional<Function> bucketFunction() {
        return windowed().map(WindowedResources::bucketFunction);
    }

    /** Windowed mode: the bucket runner's (Express) state machine, which the bucket machine runs for each due bucket. */
    public Optional<StateMachine> bucketRunner() {
        return windowed().map(WindowedResources::runner);
    }

    /** Windowed mode: the alias of the bucket function's published SnapStart version. */
    public Optional<Alias> bucketAlias() {
        return windowed().map(WindowedResources::bucketAlias);
    }

    /** Windowed mode: the bucket function's log group. */
    public Optional<LogGroup> bucketFunctionLogs() {
        return windowed().map(WindowedResources::bucketFunctionLogs);
    }

    Role functionRole() {
        return functionRole;
    }

    /** Every function the construct creates: the stream function, then the mode's own. */
    List<Function> functions() {
        List<Function> all = new ArrayList<>();
        all.add(function);
        all.addAll(resources.functions());
        return List.copyOf(all);
    }

    Optional<Role> bucketFunctionRole() {
        return windowed().map(WindowedResources::bucketFunctionRole);
    }

    ModeResources resources() {
        return resources;
    }

    private Optional<WindowedResources> windowed() {
        return resources instanceof WindowedResources windowed ? Optional.of(windowed) : Optional.empty();
    }

    private static void requireStream(ITable table, boolean cancelStale) {
        if (table.getTableStreamArn() == null) {
            throw new IllegalArgumentException("Table " + table.getNode().getPath() + " has no stream: enable "
                    + "a NEW_AND_OLD_IMAGES stream on it, or for a table imported with Table.fromTableAttributes "
                    + "pass tableStreamArn (see PunctualExpiry.importTable)");
        }
        // A table defined in this app tells its stream view type; an imported one cannot be checked here.
        if (table instanceof Table managed && managed.getNode().getDefaultChild() instanceof CfnTable cfn
                && Stack.of(managed).resolve(cfn.getStreamSpecification()) instanceof Map<?, ?> spec) {
            Object view = spec.get("streamViewType");
            boolean enough = "NEW_AND_OLD_IMAGES".equals(view) || (!cancelStale && "NEW_IMAGE".equals(view));
            if (!enough) {
                throw new IllegalArgumentException("Table " + managed.getNode().getPath() + " streams " + view
                        + "; Punctual needs NEW_AND_OLD_IMAGES (NEW_IMAGE suffices only with cancelStale off)");
            }
        }
    }

    private Queue createDeadLetterQueue() {
        // 14 days (the maximum) so an operator back from a long weekend still finds what failed.
        return Queue.Builder.create(this, "DeadLetterQueue")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .retentionPeriod(Duration.days(14))
                .build();
    }

    private Role createFunctionRole(PunctualExpiryProps props, ResourceFactory factory) {
        Role role = factory.functionRole("FunctionRole", resources.descriptions().functionRole(), functionLogs);
        // By reference (not the formatted ARN): the function, and so the stream mapping, is then created
        // only once the state machine exists, so no record meets a machine that is not there yet.
        resources.stateMachine().grantStartExecution(role);
        // DescribeExecution resolves a name conflict (is the running execution ours?); StopExecution
        // cancels executions an item change made stale. Both only on this state machine's executions.
        List<String> actions = props.cancelStale()
                ? List.of("states:DescribeExecution", "states:StopExecution")
                : List.of("states:DescribeExecution");
        role.addToPrincipalPolicy(ResourceFactory.allow(actions, resources.identity().executionsArn()));
        resources.grantFunction(role);
        // Expiry events: PutEvents on the one bus asked for, nothing when they are off.
        props.expiryEvents().ifPresent(bus -> role.addToPrincipalPolicy(
                ResourceFactory.allow(List.of("events:PutEvents"), bus.getEventBusArn())));
        return role;
    }

    private Map<String, String> functionEnvironment(PunctualExpiryProps props) {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, resources.stateMachine().getStateMachineArn());
        environment.put(StreamWiring.ENV_TTL_ATTRIBUTE, props.ttlAttribute());
        environment.put(StreamWiring.ENV_CANCEL_STALE, Boolean.toString(props.cancelStale()));
        environment.put(StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(props.maxConcurrency()));
        environment.putAll(resources.functionEnvironment());
        props.expiryEvents().ifPresent(bus -> {
            environment.put(ExpiryEvents.ENV_EVENT_BUS, bus.getEventBusArn());
            if (props.includeOldImage()) {
                environment.put(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, "true");
            }
        });
        return environment;
    }

    private DynamoEventSource createEventSource(PunctualExpiryProps props) {
        return new DynamoEventSource(props.table(), DynamoEventSourceProps.builder()
                // TRIM_HORIZON: items written before the mapping existed (up to the stream's 24 hours)
                // are scheduled too, instead of being left to native TTL.
                .startingPosition(StartingPosition.TRIM_HORIZON)
                .batchSize(props.batchSize())
                .parallelizationFactor(props.parallelizationFactor())
                .reportBatchItemFailures(true)
                .bisectBatchOnError(true)
                .retryAttempts(props.maxRetryAttempts())
                .maxRecordAge(Duration.seconds(props.maxRecordAge().toSeconds()))
                .onFailure(new SqsDlq(deadLetterQueue))
                .filters(filters(props))
                .build());
    }

    /**
     * The mapping's filters are exactly {@link StreamWiring#filterPatterns}, the text the local poller
     * applies too. Each entry is what {@code FilterCriteria.filter} would build: the pattern as a string.
     * Old images pass in every mode: the handler stops stale executions from them (with cancelStale)
     * and measures the lag of Punctual's own deletes from them (always).
     */
    private static List<Map<String, Object>> filters(PunctualExpiryProps props) {
        return StreamWiring.filterPatterns(props.ttlAttribute(), true).stream()
                .map(pattern -> Map.<String, Object>of("pattern", pattern))
                .toList();
    }
}
