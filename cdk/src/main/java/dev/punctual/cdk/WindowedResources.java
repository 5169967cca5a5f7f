package dev.punctual.cdk;

import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.Stats;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.stepfunctions.StateMachine;

/**
 * {@link ExpiryMode#WINDOWED}: the schedule index table ({@link ScheduleIndexTable}), the bucket function
 * that deletes a due bucket's items or cascades a coarse bucket, the {@code run-bucket} runner (Express),
 * which steps through a due bucket with that function, and the {@code expire-bucket} state machine
 * (Standard), which only waits and runs the runner. The stream function indexes items and deletes
 * those already due itself, so it may also write and read the index and delete from the table.
 */
final class WindowedResources implements ModeResources {

    private final ResourceFactory factory;
    private final StateMachineIdentity identity;
    private final Table scheduleIndex;
    private final LogGroup bucketFunctionLogs;
    private final Role bucketFunctionRole;
    private final Function bucketFunction;
    private final Alias bucketAlias;
    private final StateMachineIdentity runnerIdentity;
    private final StateMachine runner;
    private final StateMachine stateMachine;

    WindowedResources(ResourceFactory factory) {
        this.factory = factory;
        // The suffix keeps the name apart from the expire-item machine's: switching a deployed construct's
        // mode creates the new machine before CloudFormation deletes the old one.
        this.identity = StateMachineIdentity.unique(factory.scope(), factory.props(),
                PunctualExpiry.BUCKET_STATE_MACHINE_SUFFIX);
        this.scheduleIndex = createScheduleIndex();
        this.bucketFunctionLogs = factory.logGroup("BucketFunctionLogs");
        this.bucketFunctionRole = createBucketFunctionRole();
        this.bucketFunction = createBucketFunction();
        this.bucketAlias = factory.publish(bucketFunction, "BucketLiveAlias",
                "the bucket runner invokes the '" + PunctualExpiry.ALIAS_NAME + "' alias of the current version");
        this.runnerIdentity = identity.beside(factory.scope(), factory.props(), RUNNER_SUFFIX);
        this.runner = createBucketRunner();
        this.stateMachine = createBucketStateMachine();
        new BucketHealingRules(factory.scope(), "BucketHealing", identity.arn(), bucketAlias, bucketFunctionRole, bucketFunctionLogs,
                factory.props().table().getTableName(), factory.props().alarmTopic());
    }

    /**
     * Which item expires in which second. On-demand because its load follows the table's writes;
     * encrypted with the AWS managed key so every use of the key is in CloudTrail (it holds item keys,
     * never item images); point-in-time recovery because it is the only record of the schedule between a
     * write and its bucket's second. Its own native TTL clears entries a week after their second. DESTROY
     * on removal: it holds schedule data only, which is worthless without the construct that reads it,
     * and every indexed item still has native TTL as its backstop.
     */
    private Table createScheduleIndex() {
        return factory.ownTable("ScheduleIndex", ScheduleIndexTable.PARTITION_KEY, ScheduleIndexTable.SORT_KEY)
                .timeToLiveAttribute(ScheduleIndexTable.EXPIRES_AT)
                .build();
    }

    private Role createBucketFunctionRole() {
        Role role = factory.functionRole("BucketFunctionRole", "Punctual bucket function: reads a due bucket from"
                + " the schedule index, deletes its items conditionally, starts finer and successor bucket executions",
                bucketFunctionLogs);
        // Query a bucket's entries; GetItem/PutItem a one-second bucket's seal (written before the bucket is read);
        // UpdateItem a minute runner's mark (raised, never lowered, before each second is read).
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem",
                "dynamodb:UpdateItem"), scheduleIndex.getTableArn()));
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("dynamodb:DeleteItem"),
                factory.props().table().getTableArn()));
        // The machine that invokes this function: by its formatted ARN, since the machine's definition
        // refers to this function's alias and a reference back would be a cycle.
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("states:StartExecution"), identity.arn()));
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("states:DescribeExecution"), identity.executionsArn()));
        return role;
    }

    private Function createBucketFunction() {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, identity.arn());
        environment.put(StreamWiring.ENV_SCHEDULE_TABLE, scheduleIndex.getTableName());
        // Set even at its default, so the template says how the deployed function paces its deletes.
        environment.put(StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(factory.props().bucketDeleteConcurrency()));
        return factory.function("BucketFunction",
                "Punctual: deletes a due bucket's items at their second, or cascades a coarse bucket",
                PunctualExpiry.BUCKET_HANDLER, PunctualExpiry.BUCKET_MEMORY_MB, PunctualExpiry.BUCKET_TIMEOUT,
                bucketFunctionRole, bucketFunctionLogs, environment);
    }

    /**
     * The runner (Express): steps through a due bucket with the bucket function, which does every AWS call,
     * waiting between steps. Billed by duration at 64 MB, not by transition, so it may wait a second before
     * each due second of a minute and invoke the function at it.
     */
    private StateMachine createBucketRunner() {
        StateMachine machine = factory.expressStateMachine("BucketRunnerStateMachine", runnerIdentity.name(),
                "Punctual windowed: a due bucket's runner, one step at a time with the bucket function",
                StateMachineDefinitions.runBucketTemplate(),
                BucketWorkflow.runnerSubstitutions(Aws.PARTITION, bucketAlias.getFunctionArn()));
        // The alias ARN exactly: the definition invokes the alias, never the bare function or a version.
        machine.addToRolePolicy(ResourceFactory.allow(List.of("lambda:InvokeFunction"), bucketAlias.getFunctionArn()));
        return machine;
    }

    /**
     * The bucket machine only waits and runs the runner to its end ({@code startExecution.sync:2}): the IAM
     * the Run a Job pattern needs for a child execution (developer guide, "IAM policies for Step Functions"):
     * start the runner, describe and stop its executions, and manage the rule Step Functions listens to
     * their ends on.
     */
    private StateMachine createBucketStateMachine() {
        StateMachine machine = factory.standardStateMachine("BucketStateMachine", identity.name(),
                "Punctual windowed: at a time bucket's start, run its runner, which deletes its items or cascades it",
                StateMachineDefinitions.expireBucketTemplate(),
                BucketWorkflow.substitutions(Aws.PARTITION, runner.getStateMachineArn()));
        machine.addToRolePolicy(ResourceFactory.allow(List.of("states:StartExecution"), runner.getStateMachineArn()));
        machine.addToRolePolicy(ResourceFactory.allow(List.of("states:DescribeExecution", "states:StopExecution"),
                List.of(runnerIdentity.executionsArn(), runnerIdentity.expressExecutionsArn())));
        machine.addToRolePolicy(ResourceFactory.allow(List.of("events:PutTargets", "events:PutRule", "events:DescribeRule"),
                Stack.of(factory.scope()).formatArn(ArnComponents.builder().service("events").resource("rule")
                        .resourceName(SYNC_RULE).arnFormat(ArnFormat.SLASH_RESOURCE_NAME).build())));
        return machine;
    }

    /** What the runner's name adds to the bucket machine's ({@link PunctualExpiry#BUCKET_RUNNER_STATE_MACHINE_SUFFIX}). */
    static final String RUNNER_SUFFIX = "-runner";

    /** The rule Step Functions manages in the account to hear that a {@code .sync} child has ended. */
    static final String SYNC_RULE = "StepFunctionsGetEventsForStepFunctionsExecutionRule";

    @Override
    public StateMachineIdentity identity() {
        return identity;
    }

    @Override
    public StateMachine stateMachine() {
        return stateMachine;
    }

    /** The bucket runner's (Express) state machine. */
    StateMachine runner() {
        return runner;
    }

    @Override
    public Descriptions descriptions() {
        return new Descriptions(
                "Punctual: indexes items with a TTL into time buckets, starts one execution per bucket",
                "Punctual stream handler: indexes items into time buckets and starts bucket executions",
                "A bucket execution failed past its retries: its next generation is started (late by the"
                        + " retries); see BucketsAbandonedAlarm for a bucket that gave up",
                "A bucket execution hit the one-year limit: its items were not deleted at their TTL",
                "Bucket executions are named per bucket at run time, so their ARNs cannot be"
                        + " listed; the wildcard covers only the executions of this construct's own"
                        + " bucket state machine, for DescribeExecution (name conflicts).",
                "Logging is at ERROR without execution data on purpose: a successful bucket has nothing to"
                        + " report that its execution history (output: items, expired, superseded) lacks, and"
                        + " the bucket function logs each bucket once itself. Every failure is logged and"
                        + " alarmed (ExecutionsFailed, ExecutionsTimedOut, BucketFunctionErrors).",
                "X-Ray tracing is opt-in (tracing(true)): a trace of one Wait and one function invoke per"
                        + " bucket adds cost and little insight; failures are visible in logs, execution"
                        + " history and alarms.");
    }

    Table scheduleIndex() {
        return scheduleIndex;
    }

    LogGroup bucketFunctionLogs() {
        return bucketFunctionLogs;
    }

    Role bucketFunctionRole() {
        return bucketFunctionRole;
    }

    Function bucketFunction() {
        return bucketFunction;
    }

    Alias bucketAlias() {
        return bucketAlias;
    }

    @Override
    public List<Function> functions() {
        return List.of(bucketFunction);
    }

    /**
     * BatchWriteItem indexes a batch's items, 25 chunks a request (PutItem writes what it leaves
     * unprocessed), a consistent GetItem reads a bucket's seal; an item whose TTL has already passed is
     * deleted at once (conditionally) instead of being indexed.
     */
    @Override
    public void grantFunction(Role role) {
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("dynamodb:BatchWriteItem", "dynamodb:PutItem", "dynamodb:GetItem"),
                scheduleIndex.getTableArn()));
        role.addToPrincipalPolicy(ResourceFactory.allow(List.of("dynamodb:DeleteItem"),
                factory.props().table().getTableArn()));
    }

    @Override
    public Map<String, String> functionEnvironment() {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(StreamWiring.ENV_MODE, ExpiryMode.WINDOWED.label());
        environment.put(StreamWiring.ENV_SCHEDULE_TABLE, scheduleIndex.getTableName());
        return environment;
    }

    @Override
    public List<Alarm> alarms() {
        return List.of(ExpiryObservability.alarm(factory.scope(), "BucketFunctionErrorsAlarm",
                bucketFunction.metricErrors(MetricOptions.builder().statistic(Stats.SUM)
                        .period(ExpiryObservability.ALARM_PERIOD).build()),
                1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                "The bucket function failed; its execution retries the whole bucket (idempotent), and"
                        + " items due in it may be deleted late"));
    }

    @Override
    public void suppressNagFindings() {
        List<NagPackSuppression> role = new ArrayList<>();
        role.add(NagSuppressionsForExpiry.suppression("AwsSolutions-IAM5", "Bucket executions are named per bucket at"
                + " run time, so their ARNs cannot be listed; the wildcard covers only the executions of this"
                + " construct's own bucket state machine, for DescribeExecution (is a running child or successor ours?).",
                RegexAppliesTo.builder().regex(NagSuppressionsForExpiry.executionsFinding(identity.name())).build()));
        if (factory.props().tracing()) {
            role.add(NagSuppressionsForExpiry.suppression("AwsSolutions-IAM5", "X-Ray's PutTraceSegments,"
                    + " PutTelemetryRecords, GetSamplingRules and GetSamplingTargets have no resource-level"
                    + " permissions, so tracing (on with tracing(true)) needs them on *.",
                    NagSuppressionsForExpiry.ANY_RESOURCE));
        }
        NagSuppressions.addResourceSuppressions(bucketFunctionRole, role, true);
        NagSuppressions.addResourceSuppressions(bucketFunction, List.of(NagSuppressionsForExpiry.pinnedRuntime()), true);
        NagSuppressions.addResourceSuppressions(stateMachine.getRole(), List.of(
                NagSuppressionsForExpiry.suppression("AwsSolutions-IAM5", "A runner's executions are started and named at"
                        + " run time (Express ones end in an id of their own), so their ARNs cannot be listed; the wildcards"
                        + " cover only the executions of this construct's own runner, which the .sync integration"
                        + " describes and stops.",
                        RegexAppliesTo.builder().regex(NagSuppressionsForExpiry.executionsFinding(runnerIdentity.name())).build(),
                        RegexAppliesTo.builder().regex(NagSuppressionsForExpiry.expressExecutionsFinding(runnerIdentity.name())).build())),
                true);
        NagSuppressionsForExpiry.logDelivery(runner.getRole(), factory.props());
        List<NagPackSuppression> runnerMachine = new ArrayList<>();
        runnerMachine.add(NagSuppressionsForExpiry.suppression("AwsSolutions-SF1", "Logging is at ERROR without"
                + " execution data on purpose: an Express execution leaves no history but its log, and every failure"
                + " reaches it (each also fails a try of the bucket's execution, which retries the runner); a"
                + " successful runner's output (items, expired, superseded, seconds) is in its bucket execution's"
                + " history, and the bucket function logs each second it works. Logging every event would bill"
                + " CloudWatch Logs for each step of every runner."));
        if (!factory.props().tracing()) {
            runnerMachine.add(NagSuppressionsForExpiry.suppression("AwsSolutions-SF2", "X-Ray tracing is opt-in"
                    + " (tracing(true)): a trace per second of waits and function invokes adds cost and little insight."));
        }
        NagSuppressions.addResourceSuppressions(runner, runnerMachine, true);
    }
}
