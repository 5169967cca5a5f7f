package dev.punctual.cdk;

import static dev.punctual.cdk.TemplateJson.JSON;
import static dev.punctual.cdk.TemplateJson.actions;
import static dev.punctual.cdk.TemplateJson.render;
import static dev.punctual.cdk.TemplateJson.renderedResources;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.constructs.IConstruct;

/** The app's demo stack with {@code -c mode=windowed}, and an attached windowed table, against windowed mode's promises. */
class WindowedStackTemplateTest {

    private static final String TTL = PunctualApp.DEMO_TTL_ATTRIBUTE;
    /** Lambda's limit on a SnapStart restore (including runtime hooks), which runs inside the Task's clock. */
    private static final int SNAPSTART_RESTORE_LIMIT_SECONDS = 10;

    private static SynthesizedStacks.Synthesized windowed;
    private static TemplateJson template;
    private static PunctualExpiry expiry;
    private static String tableId;

    @BeforeAll
    static void synthesize() {
        windowed = SynthesizedStacks.windowed();
        template = windowed.template();
        expiry = windowed.expiry();
        tableId = template.logicalId(((DemoTableStack) windowed.stack()).table());
    }

    @Test
    void scheduleIndex_hasTheContractsKeys_nativeTtl_encryption_pointInTimeRecovery_andOnDemand() {
        assertThat(expiry.mode()).isEqualTo(ExpiryMode.WINDOWED);
        assertThat(template.ofType("AWS::DynamoDB::Table")).as("the demo table, the index, the backfill's progress").hasSize(3);
        JsonNode index = template.propertiesOf(expiry.scheduleIndex().orElseThrow());
        assertThat(index.path("KeySchema").toString()).isEqualTo("[{\"AttributeName\":\"" + ScheduleIndexTable.PARTITION_KEY
                + "\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"" + ScheduleIndexTable.SORT_KEY + "\",\"KeyType\":\"RANGE\"}]");
        assertThat(index.path("AttributeDefinitions").findValuesAsText("AttributeType")).containsOnly("S");
        assertThat(index.at("/TimeToLiveSpecification/AttributeName").asText()).isEqualTo(ScheduleIndexTable.EXPIRES_AT);
        assertThat(index.at("/TimeToLiveSpecification/Enabled").asBoolean()).isTrue();
        assertThat(index.at("/SSESpecification/SSEEnabled").asBoolean()).isTrue();
        assertThat(index.at("/PointInTimeRecoverySpecification/PointInTimeRecoveryEnabled").asBoolean()).isTrue();
        assertThat(index.path("BillingMode").asText()).isEqualTo("PAY_PER_REQUEST");
        assertThat(index.path("StreamSpecification").isMissingNode()).as("nothing reads the index's changes").isTrue();
        JsonNode resource = template.resources().path(template.logicalId(expiry.scheduleIndex().orElseThrow()));
        assertThat(resource.path("DeletionPolicy").asText()).isEqualTo("Delete");
    }

    @Test
    void functions_streamHandlerAndBucketFunction_java21Arm64_snapStartOnAPublishedAlias() {
        assertThat(template.ofType("AWS::Lambda::Function")).as("these two and the backfill's, which also starts itself"
                + " on first deployment").hasSize(3);
        JsonNode stream = template.propertiesOf(expiry.function());
        JsonNode bucket = template.propertiesOf(expiry.bucketFunction().orElseThrow());
        assertThat(stream.path("Handler").asText()).isEqualTo("dev.punctual.functions.ExpiryStreamHandler::handleRequest");
        assertThat(bucket.path("Handler").asText()).isEqualTo("dev.punctual.functions.BucketFunction::handleRequest");
        for (JsonNode function : List.of(stream, bucket)) {
            assertThat(function.path("Runtime").asText()).isEqualTo("java21");
            assertThat(function.path("Architectures").toString()).isEqualTo("[\"arm64\"]");
            assertThat(function.at("/SnapStart/ApplyOn").asText()).isEqualTo("PublishedVersions");
            assertThat(function.path("MemorySize").asInt()).isEqualTo(1024);
            assertThat(function.at("/Code/S3Key").asText()).isEqualTo(stream.at("/Code/S3Key").asText());
        }
        assertThat(bucket.path("Timeout").asInt()).isEqualTo(240);
        assertThat(render(bucket.at("/LoggingConfig/LogGroup")))
                .isEqualTo(ref(expiry.bucketFunctionLogs().orElseThrow()));

        JsonNode alias = template.propertiesOf(expiry.bucketAlias().orElseThrow());
        assertThat(alias.path("Name").asText()).isEqualTo(PunctualExpiry.ALIAS_NAME);
        String bucketFunction = ref(expiry.bucketFunction().orElseThrow());
        List<String> bucketVersions = template.ofType("AWS::Lambda::Version").entrySet().stream()
                .filter(version -> render(version.getValue().path("FunctionName")).equals(bucketFunction))
                .map(Map.Entry::getKey).toList();
        assertThat(bucketVersions).hasSize(1);
        assertThat(render(alias.path("FunctionVersion"))).isEqualTo("${" + bucketVersions.get(0) + ".Version}");
    }

    @Test
    void bucketFunction_timesOutBeforeTheRunnersTaskThatInvokesIt_evenAfterASnapStartRestore() throws JsonProcessingException {
        JsonNode definition = JSON.readTree(render(template.propertiesOf(expiry.bucketRunner().orElseThrow()).path("DefinitionString")));
        int taskTimeout = definition.at("/States/Step/TimeoutSeconds").asInt();
        int functionTimeout = template.propertiesOf(expiry.bucketFunction().orElseThrow()).path("Timeout").asInt();
        assertThat(taskTimeout).isPositive();
        assertThat(functionTimeout + SNAPSTART_RESTORE_LIMIT_SECONDS).isLessThan(taskTimeout);
    }

    @Test
    void streamFunction_environment_selectsWindowedMode_andTheBucketMachine() {
        assertThat(environment(expiry.function())).containsExactlyInAnyOrderEntriesOf(Map.of(
                StreamWiring.ENV_MODE, "windowed",
                StreamWiring.ENV_STATE_MACHINE_ARN, ref(expiry.stateMachine()),
                StreamWiring.ENV_TTL_ATTRIBUTE, TTL,
                StreamWiring.ENV_SCHEDULE_TABLE, ref(expiry.scheduleIndex().orElseThrow()),
                StreamWiring.ENV_CANCEL_STALE, "false",
                StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(StreamWiring.DEFAULT_MAX_CONCURRENCY),
                "POWERTOOLS_SERVICE_NAME", "punctual",
                "POWERTOOLS_LOG_LEVEL", "INFO",
                "JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1"));
    }

    @Test
    void bucketFunction_environment_namesItsOwnMachineByFormattedArn_theIndex_andTheDefaultBucketDeleteConcurrency() {
        assertThat(environment(expiry.bucketFunction().orElseThrow())).containsExactlyInAnyOrderEntriesOf(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, stateMachineArn(),
                StreamWiring.ENV_SCHEDULE_TABLE, ref(expiry.scheduleIndex().orElseThrow()),
                StreamWiring.ENV_MAX_CONCURRENCY, "64",
                "POWERTOOLS_SERVICE_NAME", "punctual",
                "POWERTOOLS_LOG_LEVEL", "INFO",
                "JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1"));
    }

    @Test
    void bucketStateMachine_standard_withExpireBucketInlined_andTheRunnerSubstituted() {
        assertThat(template.ofType("AWS::StepFunctions::StateMachine").keySet())
                .as("the bucket machine, its runner and the backfill's, no expire-item machine")
                .containsExactlyInAnyOrder(template.logicalId(expiry.stateMachine()),
                        template.logicalId(expiry.bucketRunner().orElseThrow()),
                        template.logicalId(expiry.backfill().stateMachine()));
        JsonNode machine = template.propertiesOf(expiry.stateMachine());
        assertThat(machine.path("StateMachineType").asText()).isEqualTo("STANDARD");
        assertThat(machine.path("DefinitionS3Location").isMissingNode()).isTrue();

        Map<String, String> substitutions = substitutions(machine);
        String runnerArn = ref(expiry.bucketRunner().orElseThrow());
        assertThat(substitutions).isEqualTo(BucketWorkflow.substitutions("${AWS::Partition}", runnerArn));
        String inlined = render(machine.path("DefinitionString"));
        assertThat(StateMachineDefinitions.render(inlined, substitutions))
                .isEqualTo(StateMachineDefinitions.expireBucket("${AWS::Partition}", runnerArn));

        assertThat(machine.path("StateMachineName").asText())
                .isEqualTo(expiry.stateMachineName())
                .endsWith(PunctualExpiry.BUCKET_STATE_MACHINE_SUFFIX)
                .matches("[A-Za-z0-9_-]{1,80}")
                .isNotEqualTo(SynthesizedStacks.demo().expiry().stateMachineName());
        assertThat(machine.at("/LoggingConfiguration/Level").asText()).isEqualTo("ERROR");
        assertThat(machine.at("/LoggingConfiguration/IncludeExecutionData").asBoolean(true)).isFalse();
        assertThat(machine.at("/TracingConfiguration/Enabled").asBoolean(false)).isFalse();
    }

    @Test
    void bucketRunner_express_withRunBucketInlined_theAliasSubstituted_andErrorsLogged() {
        JsonNode runner = template.propertiesOf(expiry.bucketRunner().orElseThrow());
        assertThat(runner.path("StateMachineType").asText()).isEqualTo("EXPRESS");
        Map<String, String> substitutions = substitutions(runner);
        String aliasArn = ref(expiry.bucketAlias().orElseThrow());
        assertThat(substitutions).isEqualTo(BucketWorkflow.runnerSubstitutions("${AWS::Partition}", aliasArn));
        assertThat(StateMachineDefinitions.render(render(runner.path("DefinitionString")), substitutions))
                .isEqualTo(StateMachineDefinitions.runBucket("${AWS::Partition}", aliasArn));
        assertThat(runner.path("StateMachineName").asText()).endsWith(PunctualExpiry.BUCKET_RUNNER_STATE_MACHINE_SUFFIX)
                .matches("[A-Za-z0-9_-]{1,80}").isNotEqualTo(expiry.stateMachineName());
        // Express executions keep no history: their log is what is left of a failed one.
        assertThat(runner.at("/LoggingConfiguration/Level").asText()).isEqualTo("ERROR");
        assertThat(runner.at("/LoggingConfiguration/IncludeExecutionData").asBoolean(true)).as("item keys stay out of logs").isFalse();
        assertThat(render(runner.at("/LoggingConfiguration/Destinations/0/CloudWatchLogsLogGroup/LogGroupArn")))
                .isEqualTo("${" + template.logicalId(expiry.stateMachineLogs()) + ".Arn}");
    }

    @Test
    void bucketStateMachineRole_runsOnlyTheRunner_asTheSyncPatternNeeds() {
        String runner = "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:";
        String runnerName = render(template.propertiesOf(expiry.bucketRunner().orElseThrow()).path("StateMachineName"));
        String rule = "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule";
        assertThat(grants(expiry.stateMachine().getRole())).containsExactlyInAnyOrder(
                "states:StartExecution on " + ref(expiry.bucketRunner().orElseThrow()),
                "states:DescribeExecution on " + runner + "execution:" + runnerName + ":*",
                "states:DescribeExecution on " + runner + "express:" + runnerName + ":*",
                "states:StopExecution on " + runner + "execution:" + runnerName + ":*",
                "states:StopExecution on " + runner + "express:" + runnerName + ":*",
                "events:PutTargets on " + rule,
                "events:PutRule on " + rule,
                "events:DescribeRule on " + rule);
    }

    @Test
    void bucketRunnerRole_invokesOnlyTheBucketAlias() {
        assertThat(grants(expiry.bucketRunner().orElseThrow().getRole())).containsExactly(
                "lambda:InvokeFunction on " + ref(expiry.bucketAlias().orElseThrow()));
    }

    private static Map<String, String> substitutions(JsonNode machine) {
        Map<String, String> substitutions = new LinkedHashMap<>();
        machine.path("DefinitionSubstitutions").fields()
                .forEachRemaining(e -> substitutions.put(e.getKey(), render(e.getValue())));
        return substitutions;
    }

    @Test
    void bucketFunctionRole_grantsExactlyWhatTheBucketFunctionCalls() {
        String index = "${" + template.logicalId(expiry.scheduleIndex().orElseThrow()) + ".Arn}";
        String logs = "${" + template.logicalId(expiry.bucketFunctionLogs().orElseThrow()) + ".Arn}";
        assertThat(grants(expiry.bucketFunctionRole().orElseThrow())).containsExactlyInAnyOrder(
                "logs:CreateLogStream on " + logs,
                "logs:PutLogEvents on " + logs,
                "dynamodb:Query on " + index,
                "dynamodb:GetItem on " + index,
                "dynamodb:PutItem on " + index,
                "dynamodb:UpdateItem on " + index,
                "dynamodb:DeleteItem on ${" + tableId + ".Arn}",
                "states:StartExecution on " + stateMachineArn(),
                "states:ListExecutions on " + stateMachineArn(),
                "states:DescribeExecution on " + executionsArn());
        assertThat(template.propertiesOf(expiry.bucketFunctionRole().orElseThrow()).path("ManagedPolicyArns")
                .isMissingNode()).isTrue();
    }

    @Test
    void streamFunctionRole_grantsExactlyWhatTheWindowedHandlerCalls_andNeverStopsExecutions() {
        String index = "${" + template.logicalId(expiry.scheduleIndex().orElseThrow()) + ".Arn}";
        String logs = "${" + template.logicalId(expiry.functionLogs()) + ".Arn}";
        String queue = "${" + template.logicalId(expiry.deadLetterQueue()) + ".Arn}";
        String stream = "${" + tableId + ".StreamArn}";
        assertThat(grants(expiry.functionRole())).containsExactlyInAnyOrder(
                "logs:CreateLogStream on " + logs,
                "logs:PutLogEvents on " + logs,
                "states:StartExecution on " + ref(expiry.stateMachine()),
                "states:DescribeExecution on " + executionsArn(),
                "dynamodb:BatchWriteItem on " + index,
                "dynamodb:PutItem on " + index,
                "dynamodb:GetItem on " + index,
                "dynamodb:DeleteItem on ${" + tableId + ".Arn}",
                "sqs:SendMessage on " + queue,
                "sqs:GetQueueAttributes on " + queue,
                "sqs:GetQueueUrl on " + queue,
                "dynamodb:ListStreams on *",
                "dynamodb:DescribeStream on " + stream,
                "dynamodb:GetRecords on " + stream,
                "dynamodb:GetShardIterator on " + stream);
    }

    @Test
    void wildcardResources_appearOnlyForActionsWithoutResourceLevelPermissions() {
        assertThat(WildcardGrants.actionsOnAnyResource(template.allStatements()))
                .isSubsetOf(WildcardGrants.JUSTIFIED)
                .noneMatch(action -> action.startsWith("states:") || action.startsWith("lambda:")
                        || action.startsWith("xray:"))
                .doesNotContain("dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:BatchWriteItem",
                        "dynamodb:DeleteItem");
    }

    /**
     * The test that the cloud's filter is the local poller's: both from StreamWiring, old images
     * included (windowed mode stops nothing, but Punctual's own deletes give the lag metric).
     */
    @Test
    void eventSourceMapping_filterCriteria_equalStreamWiringPatternsWithOldImages() throws JsonProcessingException {
        JsonNode mapping = template.single("AWS::Lambda::EventSourceMapping");
        List<JsonNode> deployed = new ArrayList<>();
        for (JsonNode filter : mapping.at("/FilterCriteria/Filters")) {
            deployed.add(JSON.readTree(filter.path("Pattern").asText()));
        }
        List<JsonNode> expected = new ArrayList<>();
        for (String pattern : StreamWiring.filterPatterns(TTL, true)) {
            expected.add(JSON.readTree(pattern));
        }
        assertThat(deployed).hasSize(3).isEqualTo(expected);
        assertThat(mapping.path("FunctionName").toString()).contains("{\"Ref\":\"" + template.logicalId(expiry.alias()) + "\"}");
    }

    @Test
    void alarms_addTheBucketFunctionsErrors_andWatchTheBucketMachinesExecutions() {
        Map<String, JsonNode> alarms = template.ofType("AWS::CloudWatch::Alarm");
        assertThat(alarms).as("the construct's eight and bucket healing's two").hasSize(10);
        assertThat(expiry.alarms().all()).hasSize(8);
        assertThat(dimension(expiry.alarms().bucketFunctionErrors().orElseThrow()))
                .isEqualTo(ref(expiry.bucketFunction().orElseThrow()));
        assertThat(metric(expiry.alarms().bucketFunctionErrors().orElseThrow()).path("MetricName").asText())
                .isEqualTo("Errors");
        assertThat(dimension(expiry.alarms().functionErrors())).isEqualTo(ref(expiry.function()));
        for (Alarm alarm : List.of(expiry.alarms().executionsFailed(), expiry.alarms().executionsTimedOut())) {
            assertThat(metric(alarm).path("Namespace").asText()).isEqualTo("AWS/States");
            assertThat(dimension(alarm)).isEqualTo(ref(expiry.stateMachine()));
        }
        assertThat(metric(expiry.alarms().executionsFailed()).path("MetricName").asText()).isEqualTo("ExecutionsFailed");
        assertThat(metric(expiry.alarms().executionsTimedOut()).path("MetricName").asText()).isEqualTo("ExecutionsTimedOut");
    }

    @Test
    void perItemStack_hasNoWindowedParts() {
        PunctualExpiry perItem = SynthesizedStacks.demo().expiry();
        assertThat(perItem.scheduleIndex()).isEmpty();
        assertThat(perItem.bucketFunction()).isEmpty();
        assertThat(perItem.bucketAlias()).isEmpty();
        assertThat(perItem.alarms().bucketFunctionErrors()).isEmpty();
        List<String> logicalIds = new ArrayList<>();
        SynthesizedStacks.demo().template().resources().fieldNames().forEachRemaining(logicalIds::add);
        assertThat(logicalIds).noneMatch(id -> id.contains("Bucket") || id.contains("ScheduleIndex"));
    }

    /**
     * The bucket machine's definition names the bucket function's alias, and the function's role and
     * environment name the machine: were both references, CloudFormation would refuse the stack.
     * {@code Template.fromStack} throws "Template is undeployable ... dependency cycle" for such a stack.
     */
    @Test
    void template_hasNoDependencyCycle() {
        for (SynthesizedStacks.Synthesized synthesized : List.of(windowed, SynthesizedStacks.windowedAttached())) {
            assertThatCode(() -> Template.fromStack(synthesized.stack())).doesNotThrowAnyException();
        }
    }

    @Test
    void outputs_nameTheScheduleIndex() {
        assertThat(render(template.outputs().at("/ScheduleIndexTableName/Value")))
                .isEqualTo(ref(expiry.scheduleIndex().orElseThrow()));
        assertThat(render(template.outputs().at("/StateMachineArn/Value"))).isEqualTo(ref(expiry.stateMachine()));
    }

    @Test
    void attached_tracesBothFunctions_deletesOnlyFromTheNamedTable_andNotifiesOnEveryAlarm() {
        SynthesizedStacks.Synthesized attached = SynthesizedStacks.windowedAttached();
        PunctualExpiry attachedExpiry = attached.expiry();
        TemplateJson attachedTemplate = attached.template();
        assertThat(attachedTemplate.propertiesOf(attachedExpiry.bucketFunction().orElseThrow())
                .at("/TracingConfig/Mode").asText()).isEqualTo("Active");
        assertThat(attachedTemplate.propertiesOf(attachedExpiry.function()).at("/TracingConfig/Mode").asText())
                .isEqualTo("Active");

        String tableArn = "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/"
                + SynthesizedStacks.ATTACHED_TABLE;
        for (IConstruct role : List.of(attachedExpiry.functionRole(), attachedExpiry.bucketFunctionRole().orElseThrow())) {
            List<JsonNode> deletes = TemplateJson.allowing(
                    attachedTemplate.statementsOfRole(attachedTemplate.logicalId(role)), "dynamodb:DeleteItem");
            assertThat(deletes).hasSize(1);
            assertThat(renderedResources(deletes.get(0))).containsExactly(tableArn);
        }

        assertThat(attachedTemplate.ofType("AWS::CloudWatch::Alarm").values()).hasSize(10).allSatisfy(alarm ->
                assertThat(alarm.path("AlarmActions").toString())
                        .isEqualTo("[\"" + SynthesizedStacks.ALARM_TOPIC_ARN + "\"]"));
    }

    @Test
    void bucketFunction_environment_carriesTheBucketDeleteConcurrencySet_andTheStreamFunctionKeepsItsOwn() {
        SynthesizedStacks.Synthesized attached = SynthesizedStacks.windowedAttached();
        PunctualExpiry attachedExpiry = attached.expiry();

        assertThat(environment(attached.template(), attachedExpiry.bucketFunction().orElseThrow()))
                .containsEntry(StreamWiring.ENV_MAX_CONCURRENCY,
                        Integer.toString(SynthesizedStacks.ATTACHED_BUCKET_DELETE_CONCURRENCY));
        assertThat(environment(attached.template(), attachedExpiry.function()))
                .containsEntry(StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(StreamWiring.DEFAULT_MAX_CONCURRENCY));
    }

    private static Map<String, String> environment(IConstruct function) {
        return environment(template, function);
    }

    private static Map<String, String> environment(TemplateJson template, IConstruct function) {
        Map<String, String> rendered = new LinkedHashMap<>();
        template.propertiesOf(function).at("/Environment/Variables").fields()
                .forEachRemaining(e -> rendered.put(e.getKey(), render(e.getValue())));
        return rendered;
    }

    /**
     * Every (action, resource) pair a role's policies allow, as {@code "<action> on <resource>"}, except
     * Step Functions' log delivery on {@code *} (see {@link #wildcardResources_appearOnlyForActionsWithoutResourceLevelPermissions}).
     */
    private static List<String> grants(IConstruct role) {
        return template.statementsOfRole(template.logicalId(role)).stream()
                .flatMap(statement -> actions(statement).stream()
                        .flatMap(action -> renderedResources(statement).stream().map(r -> action + " on " + r)))
                .filter(grant -> !grant.startsWith("logs:") || !grant.endsWith(" on *"))
                .collect(Collectors.toList());
    }

    private static JsonNode metric(Alarm alarm) {
        return template.propertiesOf(alarm);
    }

    private static String dimension(Alarm alarm) {
        return render(metric(alarm).at("/Dimensions/0/Value"));
    }

    private static String ref(IConstruct construct) {
        return "${" + template.logicalId(construct) + "}";
    }

    private static String stateMachineArn() {
        return "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:" + expiry.stateMachineName();
    }

    private static String executionsArn() {
        return "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:"
                + expiry.stateMachineName() + ":*";
    }
}
