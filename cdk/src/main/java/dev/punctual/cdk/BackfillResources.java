package dev.punctual.cdk;

import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
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
import java.util.TreeMap;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.CustomResource;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.constructs.Construct;

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
    /** Appended to the backfill state machine's name, after the mode's suffix of the machine it schedules into. */
    public static final String STATE_MACHINE_SUFFIX = "-backfill";

    private final Table progressTable;
    private final LogGroup functionLogs;
    private final Role functionRole;
    private final Function function;
    private final StateMachineIdentity identity;
    private final StateMachine stateMachine;
    private final PolicyStatement startOnCreateGrant;
    private final CustomResource startOnCreate;

    /**
     * @param expiry the construct whose table, mode and state machine the backfill schedules into; its
     *     stream mapping already exists
     * @param expiryFactory the construct's factory: the backfill's resources are built alike, as its children
     */
    BackfillResources(PunctualExpiry expiry, String id, ResourceFactory expiryFactory) {
        super(expiry, id);
        ResourceFactory factory = expiryFactory.within(this);
        PunctualExpiryProps props = factory.props();
        ModeResources mode = expiry.resources();
        // After the machine it schedules into, per mode as that one is: the packaged template names both modes'
        // machines after its stack, and switching the mode creates the new machine before it deletes the old one.
        this.identity = mode.identity().beside(expiry, props, STATE_MACHINE_SUFFIX);
        this.progressTable = createProgressTable(factory);
        this.functionLogs = factory.logGroup("FunctionLogs");
        this.functionRole = createFunctionRole(factory, mode);
        this.function = createFunction(factory, mode);
        this.stateMachine = createStateMachine(factory);
        // The function may start its own machine for the run on first deployment: by the ARN its fixed name
        // gives, as a reference to the machine would be a cycle.
        this.startOnCreateGrant = props.backfillOnCreate()
                ? ResourceFactory.allow(List.of("states:StartExecution"), identity.arn()) : null;
        this.startOnCreate = props.backfillOnCreate() ? createStartOnCreate(expiry, props) : null;
        applyNagSuppressions(props, mode);
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
        return identity.name();
    }

    /** The run started when the construct is first deployed; empty with {@code backfillOnCreate(false)}. */
    public Optional<CustomResource> startOnCreate() {
        return Optional.ofNullable(startOnCreate);
    }

    Role functionRole() {
        return functionRole;
    }

    /** What the function is granted only to start the run on first deployment; empty without one. */
    Optional<PolicyStatement> startOnCreateGrant() {
        return Optional.ofNullable(startOnCreateGrant);
    }

    /**
     * Each segment's position, outside any execution: an execution stopped or failed halfway leaves no
     * state Step Functions would hand to the next one. Its own table rather than the schedule index
     * (per-item mode has none) or the user's table (never written to). On-demand (a write per page),
     * the AWS managed key, point-in-time recovery; DESTROY on removal: it holds positions and counts,
     * worthless without the construct.
     */
    private Table createProgressTable(ResourceFactory factory) {
        return factory.ownTable("Progress", BackfillProgressTable.PARTITION_KEY, BackfillProgressTable.SORT_KEY).build();
    }

    private Role createFunctionRole(ResourceFactory factory, ModeResources mode) {
        Role role = factory.functionRole("FunctionRole",
                "Punctual backfill: scans the table and schedules its items the way the construct's mode does", functionLogs);
        String table = factory.props().table().getTableArn();
        // The table's key schema and TTL attribute, then a projected Scan of its key and TTL; nothing else.
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("dynamodb:DescribeTable", "dynamodb:DescribeTimeToLive",
                "dynamodb:Scan"), table));
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("dynamodb:GetItem", "dynamodb:PutItem",
                "dynamodb:UpdateItem", "dynamodb:Query"), progressTable.getTableArn()));
        // The calls the stream function makes for a new item, in the construct's mode: start and describe
        // executions of its machine, and whatever else the mode's scheduling calls (windowed: the index, and
        // the delete of an item whose TTL has passed).
        mode.stateMachine().grantStartExecution(role);
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("states:DescribeExecution"), mode.identity().executionsArn()));
        mode.grantFunction(role);
        return role;
    }

    private Function createFunction(ResourceFactory factory, ModeResources mode) {
        PunctualExpiryProps props = factory.props();
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, mode.stateMachine().getStateMachineArn());
        environment.put(StreamWiring.ENV_TTL_ATTRIBUTE, props.ttlAttribute());
        environment.putAll(mode.functionEnvironment());
        environment.put(BackfillWorkflow.ENV_PROGRESS_TABLE, progressTable.getTableName());
        environment.put(BackfillWorkflow.ENV_TABLE, props.table().getTableName());
        return factory.functionWithoutSnapStart("Function",
                "Punctual: backfill, scans one page of a segment and schedules it the way the table's mode does",
                HANDLER, BackfillWorkflow.FUNCTION_MEMORY_MB, Duration.seconds(BackfillWorkflow.FUNCTION_TIMEOUT.toSeconds()),
                functionRole, functionLogs, environment);
    }

    private StateMachine createStateMachine(ResourceFactory factory) {
        StateMachine machine = factory.standardStateMachine("StateMachine", identity.name(),
                "Punctual: schedules the items a table already holds, in parallel Scan segments, resumably",
                StateMachineDefinitions.backfillTemplate(),
                BackfillWorkflow.substitutions(Aws.PARTITION, function.getFunctionArn()));
        machine.addToRolePolicy(ResourceFactory.allow(List.of("lambda:InvokeFunction"), function.getFunctionArn()));
        // Its own successor, by the ARN its fixed name gives: a reference to the machine would be a cycle.
        machine.addToRolePolicy(ResourceFactory.allow(List.of("states:StartExecution"), identity.arn()));
        return machine;
    }

    /**
     * The run on first deployment: a custom resource the backfill function serves itself
     * ({@link BackfillWorkflow#ON_CREATE_RESOURCE_TYPE}), which starts the machine with {@code {"table": ...}}
     * on Create only (an update or a removal of the stack starts nothing), after the stream mapping exists,
     * so every item is either in the Scan or in the stream.
     */
    private CustomResource createStartOnCreate(PunctualExpiry expiry, PunctualExpiryProps props) {
        functionRole.addToPrincipalPolicy(startOnCreateGrant);
        CustomResource start = CustomResource.Builder.create(this, "StartOnCreate")
                .serviceToken(function.getFunctionArn())
                .resourceType(BackfillWorkflow.ON_CREATE_RESOURCE_TYPE)
                .properties(new TreeMap<>(Map.of(
                        BackfillWorkflow.ON_CREATE_STATE_MACHINE_ARN, stateMachine.getStateMachineArn(),
                        BackfillWorkflow.ON_CREATE_TABLE, props.table().getTableName())))
                .build();
        start.getNode().addDependency(expiry.alias());
        return start;
    }

    private void applyNagSuppressions(PunctualExpiryProps props, ModeResources mode) {
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
                RegexAppliesTo.builder().regex(NagSuppressionsForExpiry.executionsFinding(mode.identity().name())).build()));
        if (props.tracing()) {
            role.add(suppression("AwsSolutions-IAM5", tracingNote.strip(), NagSuppressionsForExpiry.ANY_RESOURCE));
        }
        NagSuppressions.addResourceSuppressions(functionRole, role, true);
        NagSuppressions.addResourceSuppressions(function, List.of(NagSuppressionsForExpiry.pinnedRuntime()), true);
        List<NagPackSuppression> machine = new ArrayList<>();
        machine.add(suppression("AwsSolutions-SF1", "Logging is at ERROR without execution data on purpose: pages"
                + " carry Scan positions (item keys), which must not reach logs; the function logs each page once"
                + " itself, with counts and no keys. Every failure is logged."));
        if (!props.tracing()) {
            machine.add(suppression("AwsSolutions-SF2", "X-Ray tracing is opt-in (tracing(true)) for every Punctual"
                    + " machine; a backfill's progress is in its execution history, its log and the progress table."));
        }
        NagSuppressions.addResourceSuppressions(stateMachine, machine, true);
    }

    private static NagPackSuppression suppression(String id, String reason, Object... appliesTo) {
        return NagSuppressionsForExpiry.suppression(id, reason, appliesTo);
    }
}
