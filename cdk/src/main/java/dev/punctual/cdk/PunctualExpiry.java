package dev.punctual.cdk;

import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.ExpiryMetricNames;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.AssetHashType;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Names;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.TagProps;
import software.amazon.awscdk.Tags;
import software.amazon.awscdk.Token;
import software.amazon.awscdk.UniqueResourceNameOptions;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.CreateAlarmOptions;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.Stats;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.CfnTable;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableAttributes;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.s3.assets.AssetOptions;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.lambda.StartingPosition;
import software.amazon.awscdk.services.lambda.Tracing;
import software.amazon.awscdk.services.lambda.eventsources.DynamoEventSource;
import software.amazon.awscdk.services.lambda.eventsources.DynamoEventSourceProps;
import software.amazon.awscdk.services.lambda.eventsources.SqsDlq;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.stepfunctions.DefinitionBody;
import software.amazon.awscdk.services.stepfunctions.LogLevel;
import software.amazon.awscdk.services.stepfunctions.LogOptions;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.amazon.awscdk.services.stepfunctions.StateMachineType;
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
     * Windowed mode: the bucket function's timeout, a minute under the {@code WorkBucket} Task's
     * {@code TimeoutSeconds} (300) in {@code expire-bucket.asl.json}. The Task's clock also runs through
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

    /**
     * Tag on every resource the construct creates but its dashboard, holding {@link PunctualVersion#current()}:
     * the same version the function puts on its log lines as {@code punctualVersion} and
     * {@code punctual --version} prints, so a deployed stack says which Punctual it runs.
     */
    public static final String VERSION_TAG = "punctual:version";

    /** Longest state machine name Step Functions accepts. */
    private static final int MAX_STATE_MACHINE_NAME = 80;

    /** The function is this far behind its stream: items due sooner than this after a write expire late. */
    public static final Duration ITERATOR_AGE_ALARM = Duration.seconds(60);

    private static final Pattern STREAM_ARN =
            Pattern.compile("arn:[a-z0-9-]+:dynamodb:[a-z0-9-]+:\\d{12}:table/([A-Za-z0-9_.-]{3,255})/stream/\\S+");

    private final ExpiryMode mode;
    private final String stateMachineName;
    private final String stateMachineArn;
    private final String executionsArn;
    private final LogGroup functionLogs;
    private final LogGroup stateMachineLogs;
    private final Table scheduleIndex;
    private final LogGroup bucketFunctionLogs;
    private final Role bucketFunctionRole;
    private final Function bucketFunction;
    private final Alias bucketAlias;
    private final StateMachine stateMachine;
    private final Role functionRole;
    private final Function function;
    private final Alias alias;
    private final Queue deadLetterQueue;
    private final ExpiryAlarms alarms;
    private final Code functionCode;
    private final String tableName;
    private final Dashboard dashboard;
    private final BackfillResources backfill;

    public PunctualExpiry(Construct scope, String id, PunctualExpiryProps props) {
        super(scope, id);
        ITable table = props.table();
        this.mode = props.mode();
        requireStream(table, props.cancellation());
        this.functionCode = createFunctionCode(props);
        this.tableName = table.getTableName();

        // Per item, the workflow starts its own successors ($$.StateMachine.Id); windowed, the bucket
        // function starts executions of the machine that invokes it. Either way a role must name the
        // machine's ARN, and a name fixed at synthesis builds that ARN without referring to the resource
        // (which would be a reference cycle).
        this.stateMachineName = stateMachineName(mode, props);
        Stack stack = Stack.of(this);
        this.stateMachineArn = stack.formatArn(ArnComponents.builder().service("states").resource("stateMachine")
                .resourceName(stateMachineName).arnFormat(ArnFormat.COLON_RESOURCE_NAME).build());
        this.executionsArn = stack.formatArn(ArnComponents.builder().service("states")
                .resource("execution").resourceName(stateMachineName + ":*")
                .arnFormat(ArnFormat.COLON_RESOURCE_NAME).build());

        this.functionLogs = LogGroup.Builder.create(this, "FunctionLogs").retention(props.logRetention()).build();
        this.stateMachineLogs = LogGroup.Builder.create(this, "StateMachineLogs")
                .retention(props.logRetention()).build();
        if (mode == ExpiryMode.WINDOWED) {
            this.scheduleIndex = createScheduleIndex();
            this.bucketFunctionLogs = LogGroup.Builder.create(this, "BucketFunctionLogs")
                    .retention(props.logRetention()).build();
            this.bucketFunctionRole = createBucketFunctionRole(props);
            this.bucketFunction = createBucketFunction(props);
            this.bucketAlias = publish(bucketFunction, "BucketLiveAlias",
                    "the bucket state machine invokes the '" + ALIAS_NAME + "' alias of the current version");
            this.stateMachine = createBucketStateMachine(props);
        } else {
            this.scheduleIndex = null;
            this.bucketFunctionLogs = null;
            this.bucketFunctionRole = null;
            this.bucketFunction = null;
            this.bucketAlias = null;
            this.stateMachine = createStateMachine(props);
        }
        this.deadLetterQueue = createDeadLetterQueue();
        this.functionRole = createFunctionRole(props);
        this.function = createFunction(props);
        this.alias = publish(function, "LiveAlias",
                "the stream invokes the '" + ALIAS_NAME + "' alias of the current version");
        alias.addEventSource(createEventSource(props));
        this.backfill = new BackfillResources(this, "Backfill", props, functionCode, executionsArn);
        this.alarms = createAlarms(props);
        this.dashboard = createDashboard();
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
        return stateMachine;
    }

    /** The state machine's name, fixed at synthesis and unique per stack. */
    public String stateMachineName() {
        return stateMachineName;
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
        return Optional.ofNullable(scheduleIndex);
    }

    /** Windowed mode: the bucket function (its {@link #bucketAlias()} is what executions invoke). */
    public Optional<Function> bucketFunction() {
        return Optional.ofNullable(bucketFunction);
    }

    /** Windowed mode: the alias of the bucket function's published SnapStart version. */
    public Optional<Alias> bucketAlias() {
        return Optional.ofNullable(bucketAlias);
    }

    /** Windowed mode: the bucket function's log group. */
    public Optional<LogGroup> bucketFunctionLogs() {
        return Optional.ofNullable(bucketFunctionLogs);
    }

    Role functionRole() {
        return functionRole;
    }

    Optional<Role> bucketFunctionRole() {
        return Optional.ofNullable(bucketFunctionRole);
    }

    private String stateMachineName(ExpiryMode expiryMode, PunctualExpiryProps props) {
        String suffix = expiryMode == ExpiryMode.WINDOWED ? BUCKET_STATE_MACHINE_SUFFIX : "";
        return props.stateMachineBaseName().orElseGet(() -> Names.uniqueResourceName(this,
                UniqueResourceNameOptions.builder().maxLength(MAX_STATE_MACHINE_NAME - suffix.length())
                        .separator("-").allowedSpecialCharacters("-_").build())) + suffix;
    }

    /** An alias of the function's current version, so what calls it always runs a SnapStart snapshot. */
    private Alias publish(Function target, String id, String caller) {
        Alias published = Alias.Builder.create(this, id).aliasName(ALIAS_NAME)
                .version(target.getCurrentVersion()).build();
        Annotations.of(target).acknowledgeWarning("@aws-cdk/aws-lambda:snapStartRequirePublish",
                "Published: " + caller);
        return published;
    }

    static PolicyStatement allow(List<String> actions, String resource) {
        return PolicyStatement.Builder.create().effect(Effect.ALLOW).actions(actions).resources(List.of(resource))
                .build();
    }

    private static void requireStream(ITable table, boolean cancellation) {
        if (table.getTableStreamArn() == null) {
            throw new IllegalArgumentException("Table " + table.getNode().getPath() + " has no stream: enable "
                    + "a NEW_AND_OLD_IMAGES stream on it, or for a table imported with Table.fromTableAttributes "
                    + "pass tableStreamArn (see PunctualExpiry.importTable)");
        }
        // A table defined in this app tells its stream view type; an imported one cannot be checked here.
        if (table instanceof Table managed && managed.getNode().getDefaultChild() instanceof CfnTable cfn
                && Stack.of(managed).resolve(cfn.getStreamSpecification()) instanceof Map<?, ?> spec) {
            Object view = spec.get("streamViewType");
            boolean enough = "NEW_AND_OLD_IMAGES".equals(view) || (!cancellation && "NEW_IMAGE".equals(view));
            if (!enough) {
                throw new IllegalArgumentException("Table " + managed.getNode().getPath() + " streams " + view
                        + "; Punctual needs NEW_AND_OLD_IMAGES (NEW_IMAGE suffices only with cancellation off)");
            }
        }
    }

    private StateMachine createStateMachine(PunctualExpiryProps props) {
        StateMachine machine = standardStateMachine("StateMachine",
                "Punctual: delete one item at its TTL if the TTL is unchanged",
                StateMachineDefinitions.expireItemTemplate(), ExpiryWorkflow.substitutions(Aws.PARTITION), props);
        machine.addToRolePolicy(allow(List.of("dynamodb:DeleteItem"), props.table().getTableArn()));
        machine.addToRolePolicy(allow(List.of("states:StartExecution"), stateMachineArn));
        return machine;
    }

    /** Windowed mode: the machine only waits and invokes the bucket function, which does every AWS call. */
    private StateMachine createBucketStateMachine(PunctualExpiryProps props) {
        StateMachine machine = standardStateMachine("BucketStateMachine",
                "Punctual windowed: at a time bucket's start, delete its items or cascade it into finer buckets",
                StateMachineDefinitions.expireBucketTemplate(),
                BucketWorkflow.substitutions(Aws.PARTITION, bucketAlias.getFunctionArn()), props);
        // The alias ARN exactly: the definition invokes the alias, never the bare function or a version.
        machine.addToRolePolicy(allow(List.of("lambda:InvokeFunction"), bucketAlias.getFunctionArn()));
        return machine;
    }

    /** A Standard machine with its ASL file inlined, so the template shows the very text the tests run. */
    private StateMachine standardStateMachine(String id, String comment, String definitionTemplate,
            Map<String, String> substitutions, PunctualExpiryProps props) {
        return StateMachine.Builder.create(this, id)
                .stateMachineName(stateMachineName)
                .stateMachineType(StateMachineType.STANDARD)
                .comment(comment)
                .definitionBody(DefinitionBody.fromString(definitionTemplate))
                .definitionSubstitutions(substitutions)
                // ERROR only and no execution data: item keys must not reach logs, and a successful
                // expiry has nothing to report that the execution history does not already hold.
                .logs(LogOptions.builder().destination(stateMachineLogs).level(LogLevel.ERROR)
                        .includeExecutionData(false).build())
                .tracingEnabled(props.tracing())
                .build();
    }

    /**
     * Windowed mode: which item expires in which second. On-demand because its load follows the table's
     * writes; encrypted with the AWS managed key so every use of the key is in CloudTrail (it holds item
     * keys, never item images); point-in-time recovery because it is the only record of the schedule
     * between a write and its bucket's second. Its own native TTL clears entries a week after their
     * second. DESTROY on removal: it holds schedule data only, which is worthless without the construct
     * that reads it, and every indexed item still has native TTL as its backstop.
     */
    private Table createScheduleIndex() {
        return Table.Builder.create(this, "ScheduleIndex")
                .partitionKey(Attribute.builder().name(ScheduleIndexTable.PARTITION_KEY).type(AttributeType.STRING)
                        .build())
                .sortKey(Attribute.builder().name(ScheduleIndexTable.SORT_KEY).type(AttributeType.STRING).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .encryption(TableEncryption.AWS_MANAGED)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true).build())
                .timeToLiveAttribute(ScheduleIndexTable.EXPIRES_AT)
                .removalPolicy(RemovalPolicy.DESTROY)
                .build();
    }

    private Role createBucketFunctionRole(PunctualExpiryProps props) {
        Role role = Role.Builder.create(this, "BucketFunctionRole")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Punctual bucket function: reads a due bucket from the schedule index, deletes its"
                        + " items conditionally, starts finer and successor bucket executions")
                .build();
        bucketFunctionLogs.grantWrite(role);
        // Query a bucket's entries; GetItem/PutItem its seal (written before the bucket is read).
        role.addToPrincipalPolicy(allow(List.of("dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem"),
                scheduleIndex.getTableArn()));
        role.addToPrincipalPolicy(allow(List.of("dynamodb:DeleteItem"), props.table().getTableArn()));
        // The machine that invokes this function: by its formatted ARN, since the machine's definition
        // refers to this function's alias and a reference back would be a cycle.
        role.addToPrincipalPolicy(allow(List.of("states:StartExecution"), stateMachineArn));
        role.addToPrincipalPolicy(allow(List.of("states:DescribeExecution"), executionsArn));
        return role;
    }

    private Function createBucketFunction(PunctualExpiryProps props) {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn);
        environment.put(StreamWiring.ENV_SCHEDULE_TABLE, scheduleIndex.getTableName());
        environment.put("POWERTOOLS_SERVICE_NAME", SERVICE_NAME);
        environment.put("POWERTOOLS_LOG_LEVEL", props.logLevel().name());
        environment.put("JAVA_TOOL_OPTIONS", JAVA_TOOL_OPTIONS);
        return Function.Builder.create(this, "BucketFunction")
                .description("Punctual: deletes a due bucket's items at their second, or cascades a coarse bucket")
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .handler(BUCKET_HANDLER)
                .code(functionCode)
                .memorySize(BUCKET_MEMORY_MB)
                .timeout(BUCKET_TIMEOUT)
                .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
                .role(bucketFunctionRole)
                .logGroup(bucketFunctionLogs)
                .tracing(props.tracing() ? Tracing.ACTIVE : Tracing.DISABLED)
                .environment(environment)
                .build();
    }

    /**
     * The bundle as a CDK asset whose hash is the jar's own content hash, so the same jar is the same
     * asset whatever path it was read from: a rebuild that changes nothing deploys nothing. Both functions
     * of windowed mode share it.
     */
    private static Code createFunctionCode(PunctualExpiryProps props) {
        Path jar = props.functionJar();
        return Code.fromAsset(jar.toString(), AssetOptions.builder()
                .assetHashType(AssetHashType.CUSTOM)
                .assetHash(FunctionBundle.assetHash(jar))
                .build());
    }

    private Queue createDeadLetterQueue() {
        // 14 days (the maximum) so an operator back from a long weekend still finds what failed.
        return Queue.Builder.create(this, "DeadLetterQueue")
                .encryption(QueueEncryption.SQS_MANAGED)
                .enforceSsl(true)
                .retentionPeriod(Duration.days(14))
                .build();
    }

    private Role createFunctionRole(PunctualExpiryProps props) {
        // Our own role instead of Lambda's default, which attaches the AWSLambdaBasicExecutionRole
        // managed policy (logs on every log group): this one writes to the function's log group only.
        Role role = Role.Builder.create(this, "FunctionRole")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description(mode == ExpiryMode.WINDOWED
                        ? "Punctual stream handler: indexes items into time buckets and starts bucket executions"
                        : "Punctual stream handler: starts, describes and stops expiry executions")
                .build();
        functionLogs.grantWrite(role);
        // By reference (not the formatted ARN): the function, and so the stream mapping, is then created
        // only once the state machine exists, so no record meets a machine that is not there yet.
        stateMachine.grantStartExecution(role);
        // DescribeExecution resolves a name conflict (is the running execution ours?); StopExecution
        // cancels executions an item change made stale. Both only on this state machine's executions.
        List<String> actions = props.cancellation()
                ? List.of("states:DescribeExecution", "states:StopExecution")
                : List.of("states:DescribeExecution");
        role.addToPrincipalPolicy(allow(actions, executionsArn));
        if (mode == ExpiryMode.WINDOWED) {
            // PutItem indexes a batch's items, a consistent GetItem reads a bucket's seal; an item whose
            // TTL has already passed is deleted at once (conditionally) instead of being indexed.
            role.addToPrincipalPolicy(allow(List.of("dynamodb:PutItem", "dynamodb:GetItem"),
                    scheduleIndex.getTableArn()));
            role.addToPrincipalPolicy(allow(List.of("dynamodb:DeleteItem"), props.table().getTableArn()));
        }
        // Expiry events: PutEvents on the one bus asked for, nothing when they are off.
        props.expiryEvents().ifPresent(bus -> role.addToPrincipalPolicy(allow(List.of("events:PutEvents"), bus.getEventBusArn())));
        return role;
    }

    private Function createFunction(PunctualExpiryProps props) {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, stateMachine.getStateMachineArn());
        environment.put(StreamWiring.ENV_TTL_ATTRIBUTE, props.ttlAttribute());
        environment.put(StreamWiring.ENV_CANCEL_STALE, Boolean.toString(props.cancellation()));
        environment.put(StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(props.maxConcurrency()));
        environment.put("POWERTOOLS_SERVICE_NAME", SERVICE_NAME);
        environment.put("POWERTOOLS_LOG_LEVEL", props.logLevel().name());
        environment.put("JAVA_TOOL_OPTIONS", JAVA_TOOL_OPTIONS);
        if (mode == ExpiryMode.WINDOWED) {
            // Per item the variable is left out: the handler's default, and the template stays as it was.
            environment.put(StreamWiring.ENV_MODE, mode.label());
            environment.put(StreamWiring.ENV_SCHEDULE_TABLE, scheduleIndex.getTableName());
        }
        props.expiryEvents().ifPresent(bus -> {
            environment.put(ExpiryEvents.ENV_EVENT_BUS, bus.getEventBusArn());
            if (props.includeOldImage()) {
                environment.put(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, "true");
            }
        });
        return Function.Builder.create(this, "Function")
                .description(mode == ExpiryMode.WINDOWED
                        ? "Punctual: indexes items with a TTL into time buckets, starts one execution per bucket"
                        : "Punctual: starts one expiry execution per item with a TTL")
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .handler(HANDLER)
                .code(functionCode)
                .memorySize(MEMORY_MB)
                .timeout(TIMEOUT)
                .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
                .role(functionRole)
                .logGroup(functionLogs)
                .tracing(props.tracing() ? Tracing.ACTIVE : Tracing.DISABLED)
                .environment(environment)
                .build();
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
     * Old images pass in every mode: the handler stops stale executions from them (with cancellation)
     * and measures the lag of Punctual's own deletes from them (always).
     */
    private static List<Map<String, Object>> filters(PunctualExpiryProps props) {
        return StreamWiring.filterPatterns(props.ttlAttribute(), true).stream()
                .map(pattern -> Map.<String, Object>of("pattern", pattern))
                .toList();
    }

    private ExpiryAlarms createAlarms(PunctualExpiryProps props) {
        Duration oneMinute = Duration.minutes(1);
        Duration fiveMinutes = Duration.minutes(5);
        boolean windowed = mode == ExpiryMode.WINDOWED;
        ExpiryAlarms created = new ExpiryAlarms(
                alarm("IteratorAgeAlarm", function.metric("IteratorAge", MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(oneMinute).build()),
                        ITERATOR_AGE_ALARM.toMilliseconds().doubleValue(), ComparisonOperator.GREATER_THAN_THRESHOLD,
                        "The expiry function is over a minute behind the table's stream: new items are scheduled late"),
                alarm("FunctionErrorsAlarm", function.metricErrors(MetricOptions.builder()
                                .statistic(Stats.SUM).period(fiveMinutes).build()),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        "The expiry function failed; the stream batch is retried, then sent to the dead-letter queue"),
                alarm("DeadLettersAlarm", deadLetterQueue.metricApproximateNumberOfMessagesVisible(MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(fiveMinutes).build()),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        "Stream records were given up on: those items are not scheduled (native TTL deletes them late)"),
                alarm("ExecutionsFailedAlarm", stateMachine.metricFailed(MetricOptions.builder()
                                .statistic(Stats.SUM).period(fiveMinutes).build()),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        windowed
                                ? "A bucket execution failed past its retries: the bucket's items were not deleted"
                                        + " at their TTL (native TTL deletes them later)"
                                : "An expiry execution failed: its item was not deleted at its TTL"),
                alarm("ExecutionsTimedOutAlarm", stateMachine.metricTimedOut(MetricOptions.builder()
                                .statistic(Stats.SUM).period(fiveMinutes).build()),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        windowed
                                ? "A bucket execution hit the one-year limit: its items were not deleted at their TTL"
                                : "An expiry execution hit the one-year limit: its item was not deleted at its TTL"),
                windowed ? alarm("BucketFunctionErrorsAlarm", bucketFunction.metricErrors(MetricOptions.builder()
                                .statistic(Stats.SUM).period(fiveMinutes).build()),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        "The bucket function failed; its execution retries the whole bucket (idempotent), and"
                                + " items due in it may be deleted late") : null,
                alarm("ExpiryLagAlarm", expiryMetric(ExpiryMetricNames.EXPIRY_LAG, Stats.percentile(99), fiveMinutes),
                        props.lagAlarmThreshold().toMillis(), ComparisonOperator.GREATER_THAN_THRESHOLD,
                        "Expiry lag p99 (TTL to the stream record of Punctual's delete; an upper bound, it includes"
                                + " the stream's delay) is above " + props.lagAlarmThreshold().toMillis() + " ms"),
                alarm("BackstopWinsAlarm", expiryMetric(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL, Stats.SUM, fiveMinutes),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        "Native TTL deleted an item before Punctual did: that item expired late"));
        // No alarm on aborted executions: with cancellation on, StopExecution aborts stale ones by design.
        props.alarmTopic().ifPresent(topic -> created.all().forEach(alarm -> {
            alarm.addAlarmAction(new SnsAction(topic));
            alarm.addOkAction(new SnsAction(topic));
        }));
        return created;
    }

    /** One of the handler's own metrics ({@link ExpiryMetricNames}) for this construct's table. */
    private Metric expiryMetric(String name, String statistic, Duration period) {
        return Metric.Builder.create()
                .namespace(ExpiryMetricNames.NAMESPACE)
                .metricName(name)
                .dimensionsMap(Map.of(ExpiryMetricNames.DIMENSION_TABLE, tableName))
                .statistic(statistic)
                .period(period)
                .build();
    }

    /**
     * What an operator looks at first: how late expiry runs (p50 and p99 of the lag, an upper bound since
     * it includes the stream's delay), how often native TTL won, whether the function keeps up with the
     * stream, the executions' fate and the dead letters.
     */
    private Dashboard createDashboard() {
        Duration period = Duration.minutes(1);
        Dashboard dashboard = Dashboard.Builder.create(this, "Dashboard").build();
        dashboard.addWidgets(
                graph("Expiry lag, TTL to Punctual's delete (ms, upper bound: includes stream delay)",
                        List.of(expiryMetric(ExpiryMetricNames.EXPIRY_LAG, Stats.percentile(50), period).with(
                                        MetricOptions.builder().label("p50").build()),
                                expiryMetric(ExpiryMetricNames.EXPIRY_LAG, Stats.percentile(99), period).with(
                                        MetricOptions.builder().label("p99").build()))),
                graph("Expiries: by Punctual, by native TTL (backstop wins)",
                        List.of(expiryMetric(ExpiryMetricNames.EXPIRED_BY_PUNCTUAL, Stats.SUM, period),
                                expiryMetric(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL, Stats.SUM, period))),
                graph("Stream iterator age (ms)",
                        List.of(function.metric("IteratorAge", MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(period).build()))));
        dashboard.addWidgets(
                graph("Executions: started, failed, timed out",
                        List.of(stateMachine.metricStarted(sum(period)), stateMachine.metricFailed(sum(period)),
                                stateMachine.metricTimedOut(sum(period)))),
                graph("Records: scheduled, superseded; start failures",
                        List.of(expiryMetric(ExpiryMetricNames.RECORDS_SCHEDULED, Stats.SUM, period),
                                expiryMetric(ExpiryMetricNames.RECORDS_SUPERSEDED, Stats.SUM, period),
                                expiryMetric(ExpiryMetricNames.START_EXECUTION_FAILURES, Stats.SUM, period))),
                graph("Dead-letter queue depth",
                        List.of(deadLetterQueue.metricApproximateNumberOfMessagesVisible(MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(period).build()))));
        return dashboard;
    }

    private static MetricOptions sum(Duration period) {
        return MetricOptions.builder().statistic(Stats.SUM).period(period).build();
    }

    private static GraphWidget graph(String title, List<IMetric> metrics) {
        return GraphWidget.Builder.create().title(title).left(metrics).width(8).build();
    }

    private Alarm alarm(String id, Metric metric, double threshold, ComparisonOperator operator, String description) {
        return metric.createAlarm(this, id, CreateAlarmOptions.builder()
                .threshold(threshold)
                .comparisonOperator(operator)
                .evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .alarmDescription(description)
                .build());
    }
}
