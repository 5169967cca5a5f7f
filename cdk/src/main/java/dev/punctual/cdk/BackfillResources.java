package dev.punctual.cdk;

import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Names;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.UniqueResourceNameOptions;
import software.amazon.awscdk.customresources.AwsCustomResource;
import software.amazon.awscdk.customresources.AwsCustomResourcePolicy;
import software.amazon.awscdk.customresources.AwsSdkCall;
import software.amazon.awscdk.customresources.PhysicalResourceId;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.Tracing;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.stepfunctions.DefinitionBody;
import software.amazon.awscdk.services.stepfunctions.LogLevel;
import software.amazon.awscdk.services.stepfunctions.LogOptions;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.amazon.awscdk.services.stepfunctions.StateMachineType;
import software.constructs.Construct;
import software.constructs.IConstruct;

/**
 * Backfill, where the table lives: the {@code backfill} state machine with {@code backfill.asl.json}
 * inlined, its function ({@code BackfillFunction}, scheduling pages the way the construct's mode does),
 * the progress table that keeps each Scan segment's position between executions, and, unless
 * {@link PunctualExpiryProps#backfillOnCreate()} is off, one execution started by itself when the
 * construct is first deployed, once the stream mapping exists, so items written before Punctual was
 * attached are scheduled too. Every grant names its resource.
 */
public final class BackfillResources extends Construct {

    /** The backfill function's handler, in the functions jar. */
    public static final String HANDLER = "dev.punctual.functions.BackfillFunction::handleRequest";
    /** Appended to the backfill state machine's name, which is unique per construct. */
    public static final String STATE_MACHINE_SUFFIX = "-backfill";
    /** Longest state machine name Step Functions accepts. */
    private static final int MAX_STATE_MACHINE_NAME = 80;

    private final Table progressTable;
    private final LogGroup functionLogs;
    private final LogGroup stateMachineLogs;
    private final Role functionRole;
    private final Function function;
    private final String stateMachineName;
    private final StateMachine stateMachine;
    private final AwsCustomResource startOnCreate;
    private final LogGroup startOnCreateLogs;
    private final Role startOnCreateRole;

    /**
     * @param expiry the construct whose table, mode and state machine the backfill schedules into; its
     *     stream mapping already exists
     * @param functionCode the functions jar the construct's other functions run
     * @param scheduledExecutionsArn the ARN pattern of the mode's state machine's executions (DescribeExecution)
     */
    BackfillResources(PunctualExpiry expiry, String id, PunctualExpiryProps props, Code functionCode,
            String scheduledExecutionsArn) {
        super(expiry, id);
        // After the expire machine's base name, per mode as it is: the packaged template names both modes'
        // machines after its stack, and switching the mode creates the new machine before it deletes the old one.
        String suffix = (props.mode() == ExpiryMode.WINDOWED ? PunctualExpiry.BUCKET_STATE_MACHINE_SUFFIX : "")
                + STATE_MACHINE_SUFFIX;
        this.stateMachineName = props.stateMachineBaseName().orElseGet(() -> Names.uniqueResourceName(expiry,
                UniqueResourceNameOptions.builder().maxLength(MAX_STATE_MACHINE_NAME - suffix.length()).separator("-")
                        .allowedSpecialCharacters("-_").build())) + suffix;
        this.progressTable = createProgressTable();
        this.functionLogs = LogGroup.Builder.create(this, "FunctionLogs").retention(props.logRetention()).build();
        this.stateMachineLogs = LogGroup.Builder.create(this, "StateMachineLogs").retention(props.logRetention()).build();
        this.functionRole = createFunctionRole(expiry, props, scheduledExecutionsArn);
        this.function = createFunction(expiry, props, functionCode);
        this.stateMachine = createStateMachine(props);
        if (props.backfillOnCreate()) {
            this.startOnCreateLogs = LogGroup.Builder.create(this, "StartOnCreateLogs").retention(props.logRetention()).build();
            this.startOnCreateRole = Role.Builder.create(this, "StartOnCreateRole")
                    .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                    .description("Punctual: starts the backfill once, when the construct is first deployed")
                    .build();
            startOnCreateLogs.grantWrite(startOnCreateRole);
            this.startOnCreate = createStartOnCreate(expiry, props);
        } else {
            this.startOnCreateLogs = null;
            this.startOnCreateRole = null;
            this.startOnCreate = null;
        }
        applyNagSuppressions(props);
    }

    /** Where each Scan segment of a run stands ({@link BackfillProgressTable}). */
    public Table progressTable() {
        return progressTable;
    }

    /** The backfill function. */
    public Function function() {
        return function;
    }

    /** The backfill function's log group: a line per page, and one per item skipped for bad data. */
    public LogGroup functionLogs() {
        return functionLogs;
    }

    /** The {@code backfill} state machine: start it with {@code {"table": "<name>"}}. */
    public StateMachine stateMachine() {
        return stateMachine;
    }

    /** The state machine's name, fixed at synthesis. */
    public String stateMachineName() {
        return stateMachineName;
    }

    /** The run started when the construct is first deployed; empty with {@code backfillOnCreate(false)}. */
    public Optional<AwsCustomResource> startOnCreate() {
        return Optional.ofNullable(startOnCreate);
    }

    Role functionRole() {
        return functionRole;
    }

    Optional<Role> startOnCreateRole() {
        return Optional.ofNullable(startOnCreateRole);
    }

    /**
     * Each segment's position, outside any execution: an execution stopped or failed halfway leaves no
     * state Step Functions would hand to the next one. Its own table rather than the schedule index
     * (per-item mode has none) or the user's table (never written to). On-demand (a write per page),
     * the AWS managed key, point-in-time recovery; DESTROY on removal: it holds positions and counts,
     * worthless without the construct.
     */
    private Table createProgressTable() {
        return Table.Builder.create(this, "Progress")
                .partitionKey(Attribute.builder().name(BackfillProgressTable.PARTITION_KEY).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(BackfillProgressTable.SORT_KEY).type(AttributeType.STRING).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .encryption(TableEncryption.AWS_MANAGED)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true).build())
                .removalPolicy(RemovalPolicy.DESTROY)
                .build();
    }

    private Role createFunctionRole(PunctualExpiry expiry, PunctualExpiryProps props, String scheduledExecutionsArn) {
        Role role = Role.Builder.create(this, "FunctionRole")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Punctual backfill: scans the table and schedules its items the way the construct's mode does")
                .build();
        functionLogs.grantWrite(role);
        String table = props.table().getTableArn();
        // The table's key schema and TTL attribute, then a projected Scan of its key and TTL; nothing else.
        role.addToPrincipalPolicy(allow(List.of("dynamodb:DescribeTable", "dynamodb:DescribeTimeToLive", "dynamodb:Scan"), table));
        role.addToPrincipalPolicy(allow(List.of("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"),
                progressTable.getTableArn()));
        // The same calls the stream handler makes for a new item, in the construct's mode.
        expiry.stateMachine().grantStartExecution(role);
        role.addToPrincipalPolicy(allow(List.of("states:DescribeExecution"), scheduledExecutionsArn));
        expiry.scheduleIndex().ifPresent(index -> {
            role.addToPrincipalPolicy(allow(List.of("dynamodb:PutItem", "dynamodb:GetItem"), index.getTableArn()));
            // An item whose TTL has passed is deleted at once, conditionally, as the handler does.
            role.addToPrincipalPolicy(allow(List.of("dynamodb:DeleteItem"), table));
        });
        return role;
    }

    private Function createFunction(PunctualExpiry expiry, PunctualExpiryProps props, Code functionCode) {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, expiry.stateMachine().getStateMachineArn());
        environment.put(StreamWiring.ENV_TTL_ATTRIBUTE, props.ttlAttribute());
        if (props.mode() == ExpiryMode.WINDOWED) {
            environment.put(StreamWiring.ENV_MODE, props.mode().label());
            environment.put(StreamWiring.ENV_SCHEDULE_TABLE, expiry.scheduleIndex().orElseThrow().getTableName());
        }
        environment.put(BackfillWorkflow.ENV_PROGRESS_TABLE, progressTable.getTableName());
        environment.put(BackfillWorkflow.ENV_TABLE, props.table().getTableName());
        environment.put("POWERTOOLS_SERVICE_NAME", PunctualExpiry.SERVICE_NAME);
        environment.put("POWERTOOLS_LOG_LEVEL", props.logLevel().name());
        environment.put("JAVA_TOOL_OPTIONS", PunctualExpiry.JAVA_TOOL_OPTIONS);
        // No SnapStart: a backfill runs rarely, and a few cold starts per run cost less than a published version.
        return Function.Builder.create(this, "Function")
                .description("Punctual: backfill, scans one page of a segment and schedules it the way the table's mode does")
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .handler(HANDLER)
                .code(functionCode)
                .memorySize(BackfillWorkflow.FUNCTION_MEMORY_MB)
                .timeout(Duration.seconds(BackfillWorkflow.FUNCTION_TIMEOUT.toSeconds()))
                .role(functionRole)
                .logGroup(functionLogs)
                .tracing(props.tracing() ? Tracing.ACTIVE : Tracing.DISABLED)
                .environment(environment)
                .build();
    }

    private StateMachine createStateMachine(PunctualExpiryProps props) {
        StateMachine machine = StateMachine.Builder.create(this, "StateMachine")
                .stateMachineName(stateMachineName)
                .stateMachineType(StateMachineType.STANDARD)
                .comment("Punctual: schedules the items a table already holds, in parallel Scan segments, resumably")
                .definitionBody(DefinitionBody.fromString(StateMachineDefinitions.backfillTemplate()))
                .definitionSubstitutions(BackfillWorkflow.substitutions(Aws.PARTITION, function.getFunctionArn()))
                .logs(LogOptions.builder().destination(stateMachineLogs).level(LogLevel.ERROR).includeExecutionData(false).build())
                .tracingEnabled(props.tracing())
                .build();
        machine.addToRolePolicy(allow(List.of("lambda:InvokeFunction"), function.getFunctionArn()));
        // Its own successor, by the ARN its fixed name gives: a reference to the machine would be a cycle.
        machine.addToRolePolicy(allow(List.of("states:StartExecution"), ownArn()));
        return machine;
    }

    /**
     * The run on first deployment: a StartExecution with {@code {"table": ...}} on Create only (an update
     * or a removal of the stack starts nothing), after the stream mapping exists, so every item is either
     * in the Scan or in the stream. Its provider function writes to its own log group under its own role.
     */
    private AwsCustomResource createStartOnCreate(PunctualExpiry expiry, PunctualExpiryProps props) {
        AwsCustomResource start = AwsCustomResource.Builder.create(this, "StartOnCreate")
                .onCreate(AwsSdkCall.builder()
                        .service("SFN")
                        .action("startExecution")
                        .parameters(Map.of(
                                "stateMachineArn", stateMachine.getStateMachineArn(),
                                "input", Stack.of(this).toJsonString(Map.of(BackfillWorkflow.TABLE, props.table().getTableName()))))
                        .physicalResourceId(PhysicalResourceId.fromResponse("executionArn"))
                        .build())
                .policy(AwsCustomResourcePolicy.fromStatements(List.of(
                        allow(List.of("states:StartExecution"), stateMachine.getStateMachineArn()))))
                .role(startOnCreateRole)
                .logGroup(startOnCreateLogs)
                .installLatestAwsSdk(false)
                .build();
        start.getNode().addDependency(expiry.alias());
        return start;
    }

    private String ownArn() {
        return Stack.of(this).formatArn(ArnComponents.builder().service("states").resource("stateMachine")
                .resourceName(stateMachineName).arnFormat(ArnFormat.COLON_RESOURCE_NAME).build());
    }

    private void applyNagSuppressions(PunctualExpiryProps props) {
        String tracingNote = props.tracing()
                ? " X-Ray's PutTraceSegments, PutTelemetryRecords, GetSamplingRules and GetSamplingTargets likewise have"
                        + " no resource-level permissions, so tracing needs them on *."
                : "";
        NagSuppressions.addResourceSuppressions(stateMachine.getRole(), List.of(suppression("AwsSolutions-IAM5",
                "The CloudWatch Logs vended-log delivery actions (logs:CreateLogDelivery, GetLogDelivery,"
                        + " UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy,"
                        + " DescribeResourcePolicies, DescribeLogGroups) do not support resource-level permissions;"
                        + " Step Functions requires them on * to deliver execution logs." + tracingNote,
                NagSuppressionsForExpiry.ANY_RESOURCE)), true);
        List<NagPackSuppression> role = new ArrayList<>();
        role.add(suppression("AwsSolutions-IAM5", "Executions of the mode's state machine are named per item or"
                + " bucket at run time, so their ARNs cannot be listed; the wildcard covers only that one machine's"
                + " executions, for DescribeExecution (is the execution holding a name ours?).",
                RegexAppliesTo.builder().regex("/^Resource::arn:\\S+:states:\\S+:execution:\\S+:\\*$/").build()));
        if (props.tracing()) {
            role.add(suppression("AwsSolutions-IAM5", tracingNote.strip(), NagSuppressionsForExpiry.ANY_RESOURCE));
        }
        NagSuppressions.addResourceSuppressions(functionRole, role, true);
        NagSuppressions.addResourceSuppressions(function, List.of(suppression("AwsSolutions-L1", "Pinned to java21"
                + " (LTS), the runtime the functions are built and tested for; a newer Java runtime is adopted as a"
                + " tested upgrade.")), true);
        List<NagPackSuppression> machine = new ArrayList<>();
        machine.add(suppression("AwsSolutions-SF1", "Logging is at ERROR without execution data on purpose: pages"
                + " carry Scan positions (item keys), which must not reach logs; the function logs each page once"
                + " itself, with counts and no keys. Every failure is logged."));
        if (!props.tracing()) {
            machine.add(suppression("AwsSolutions-SF2", "X-Ray tracing is opt-in (tracing(true)) for every Punctual"
                    + " machine; a backfill's progress is in its execution history, its log and the progress table."));
        }
        NagSuppressions.addResourceSuppressions(stateMachine, machine, true);
        if (startOnCreate != null) {
            IConstruct provider = Stack.of(this).getNode().tryFindChild(
                    "AWS" + AwsCustomResource.PROVIDER_FUNCTION_UUID.replace("-", ""));
            if (provider != null) {
                NagSuppressions.addResourceSuppressions(provider, List.of(suppression("AwsSolutions-L1",
                        "The AWS CDK's own AwsCustomResource provider: its Node.js runtime is chosen and upgraded by"
                                + " aws-cdk-lib, not by this construct.")), true);
            }
        }
    }

    private static PolicyStatement allow(List<String> actions, String resource) {
        return PunctualExpiry.allow(actions, resource);
    }

    private static NagPackSuppression suppression(String id, String reason, Object... appliesTo) {
        return NagSuppressionsForExpiry.suppression(id, reason, appliesTo);
    }
}
