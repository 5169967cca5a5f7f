package dev.punctual.cdk;

import static dev.punctual.cdk.TemplateJson.JSON;
import static dev.punctual.cdk.TemplateJson.actions;
import static dev.punctual.cdk.TemplateJson.allowing;
import static dev.punctual.cdk.TemplateJson.render;
import static dev.punctual.cdk.TemplateJson.renderedResources;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The demo stack ({@link PunctualApp} without context) against every promise the construct makes. */
class DemoStackTemplateTest {

    private static final String TTL = PunctualApp.DEMO_TTL_ATTRIBUTE;

    private static SynthesizedStacks.Synthesized demo;
    private static TemplateJson template;
    private static PunctualExpiry expiry;

    @BeforeAll
    static void synthesize() {
        demo = SynthesizedStacks.demo();
        template = demo.template();
        expiry = demo.expiry();
    }

    @Test
    void table_hasNewAndOldImagesStream_nativeTtl_onDemand_andPointInTimeRecovery() {
        assertThat(template.ofType("AWS::DynamoDB::Table")).as("the demo table and the backfill's progress table").hasSize(2);
        JsonNode table = template.propertiesOf(((DemoTableStack) demo.stack()).table());
        assertThat(table.at("/StreamSpecification/StreamViewType").asText()).isEqualTo("NEW_AND_OLD_IMAGES");
        assertThat(table.at("/TimeToLiveSpecification/AttributeName").asText()).isEqualTo(TTL);
        assertThat(table.at("/TimeToLiveSpecification/Enabled").asBoolean()).isTrue();
        assertThat(table.path("BillingMode").asText()).isEqualTo("PAY_PER_REQUEST");
        assertThat(table.at("/PointInTimeRecoverySpecification/PointInTimeRecoveryEnabled").asBoolean()).isTrue();
    }

    @Test
    void function_isJava21OnArm64_withSnapStart_memoryAndTimeout() {
        JsonNode function = template.propertiesOf(expiry.function());
        assertThat(function.path("Runtime").asText()).isEqualTo("java21");
        assertThat(function.path("Architectures").toString()).isEqualTo("[\"arm64\"]");
        assertThat(function.at("/SnapStart/ApplyOn").asText()).isEqualTo("PublishedVersions");
        assertThat(function.path("Handler").asText()).isEqualTo("dev.punctual.functions.ExpiryStreamHandler::handleRequest");
        assertThat(function.path("MemorySize").asInt()).isEqualTo(1024);
        assertThat(function.path("Timeout").asInt()).isEqualTo(120);
        assertThat(function.at("/Code/S3Key").asText()).matches("[0-9a-f]{64}\\.jar");
        assertThat(function.path("TracingConfig").isMissingNode()).isTrue();
    }

    @Test
    void function_environment_usesStreamWiringNames() {
        JsonNode variables = template.propertiesOf(expiry.function()).at("/Environment/Variables");
        Map<String, String> rendered = new LinkedHashMap<>();
        variables.fields().forEachRemaining(e -> rendered.put(e.getKey(), render(e.getValue())));
        assertThat(rendered).containsExactlyInAnyOrderEntriesOf(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, "${" + template.logicalId(expiry.stateMachine()) + "}",
                StreamWiring.ENV_TTL_ATTRIBUTE, TTL,
                StreamWiring.ENV_CANCEL_STALE, "true",
                StreamWiring.ENV_MAX_CONCURRENCY, Integer.toString(StreamWiring.DEFAULT_MAX_CONCURRENCY),
                "POWERTOOLS_SERVICE_NAME", "punctual",
                "POWERTOOLS_LOG_LEVEL", "INFO",
                "JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1"));
    }

    @Test
    void function_logsToItsOwnLogGroup_withRetention() {
        JsonNode function = template.propertiesOf(expiry.function());
        assertThat(render(function.at("/LoggingConfig/LogGroup")))
                .isEqualTo("${" + template.logicalId(expiry.functionLogs()) + "}");
        assertThat(template.propertiesOf(expiry.functionLogs()).path("RetentionInDays").asInt()).isEqualTo(30);
    }

    @Test
    void eventSourceMapping_invokesTheAliasOfThePublishedVersion() {
        JsonNode version = template.single("AWS::Lambda::Version");
        assertThat(render(version.path("FunctionName"))).isEqualTo("${" + template.logicalId(expiry.function()) + "}");
        JsonNode alias = template.propertiesOf(expiry.alias());
        assertThat(alias.path("Name").asText()).isEqualTo("live");
        String versionId = template.ofType("AWS::Lambda::Version").keySet().iterator().next();
        assertThat(render(alias.path("FunctionVersion"))).isEqualTo("${" + versionId + ".Version}");

        JsonNode functionName = template.single("AWS::Lambda::EventSourceMapping").path("FunctionName");
        assertThat(functionName.toString())
                .contains("{\"Ref\":\"" + template.logicalId(expiry.alias()) + "\"}")
                .contains(":live");
    }

    @Test
    void eventSourceMapping_settings() {
        JsonNode mapping = template.single("AWS::Lambda::EventSourceMapping");
        String tableId = template.logicalId(((DemoTableStack) demo.stack()).table());
        assertThat(render(mapping.path("EventSourceArn"))).isEqualTo("${" + tableId + ".StreamArn}");
        assertThat(mapping.path("StartingPosition").asText()).isEqualTo("TRIM_HORIZON");
        assertThat(mapping.path("BatchSize").asInt()).isEqualTo(StreamWiring.DEFAULT_BATCH_SIZE);
        assertThat(mapping.path("ParallelizationFactor").asInt()).isEqualTo(1);
        assertThat(mapping.path("FunctionResponseTypes").toString()).isEqualTo("[\"ReportBatchItemFailures\"]");
        assertThat(mapping.path("BisectBatchOnFunctionError").asBoolean()).isTrue();
        assertThat(mapping.path("MaximumRetryAttempts").asInt()).isEqualTo(StreamWiring.DEFAULT_MAX_RETRY_ATTEMPTS);
        assertThat(mapping.path("MaximumRecordAgeInSeconds").asLong())
                .isEqualTo(StreamWiring.DEFAULT_MAX_RECORD_AGE.toSeconds());
        assertThat(render(mapping.at("/DestinationConfig/OnFailure/Destination")))
                .isEqualTo("${" + template.logicalId(expiry.deadLetterQueue()) + ".Arn}");
        assertThat(mapping.path("MaximumBatchingWindowInSeconds").isMissingNode()).isTrue();
    }

    /** The test that the cloud's filter is the local poller's: both come from StreamWiring, compared as JSON. */
    @Test
    void eventSourceMapping_filterCriteria_equalStreamWiringPatterns() throws JsonProcessingException {
        JsonNode filters = template.single("AWS::Lambda::EventSourceMapping").at("/FilterCriteria/Filters");
        List<JsonNode> deployed = new ArrayList<>();
        for (JsonNode filter : filters) {
            deployed.add(JSON.readTree(filter.path("Pattern").asText()));
        }
        List<JsonNode> expected = new ArrayList<>();
        for (String pattern : StreamWiring.filterPatterns(TTL, true)) {
            expected.add(JSON.readTree(pattern));
        }
        assertThat(deployed).hasSize(3).isEqualTo(expected);
    }

    @Test
    void deadLetterQueue_isEncrypted_keepsMessages14Days_andRefusesPlainHttp() {
        JsonNode queue = template.propertiesOf(expiry.deadLetterQueue());
        assertThat(queue.path("SqsManagedSseEnabled").asBoolean()).isTrue();
        assertThat(queue.path("MessageRetentionPeriod").asInt()).isEqualTo(14 * 24 * 3600);
        JsonNode statement = template.single("AWS::SQS::QueuePolicy").at("/PolicyDocument/Statement/0");
        assertThat(statement.path("Effect").asText()).isEqualTo("Deny");
        assertThat(statement.at("/Condition/Bool/aws:SecureTransport").asText()).isEqualTo("false");
    }

    @Test
    void stateMachine_isStandard_withTheAslFileInlined_andPartitionSubstituted() {
        JsonNode machine = template.propertiesOf(expiry.stateMachine());
        assertThat(machine.path("StateMachineType").asText()).isEqualTo("STANDARD");
        assertThat(render(machine.path("DefinitionString"))).isEqualTo(StateMachineDefinitions.expireItemTemplate());
        assertThat(machine.path("DefinitionS3Location").isMissingNode()).isTrue();
        assertThat(machine.path("DefinitionSubstitutions").toString()).isEqualTo("{\"Partition\":{\"Ref\":\"AWS::Partition\"}}");
        assertThat(machine.path("StateMachineName").asText())
                .isEqualTo(expiry.stateMachineName())
                .matches("[A-Za-z0-9_-]{1,80}");
    }

    @Test
    void stateMachine_logsErrorsOnly_withoutExecutionData_andNoTracingByDefault() {
        JsonNode machine = template.propertiesOf(expiry.stateMachine());
        assertThat(machine.at("/LoggingConfiguration/Level").asText()).isEqualTo("ERROR");
        assertThat(machine.at("/LoggingConfiguration/IncludeExecutionData").asBoolean(true)).isFalse();
        assertThat(render(machine.at("/LoggingConfiguration/Destinations/0/CloudWatchLogsLogGroup/LogGroupArn")))
                .isEqualTo("${" + template.logicalId(expiry.stateMachineLogs()) + ".Arn}");
        assertThat(machine.at("/TracingConfiguration/Enabled").asBoolean(false)).isFalse();
        assertThat(template.propertiesOf(expiry.stateMachineLogs()).path("RetentionInDays").asInt()).isEqualTo(30);
    }

    @Test
    void stateMachineRole_deletesFromTheTableOnly_andStartsOnlyItself() {
        List<JsonNode> statements = template.statementsOfRole(template.logicalId(expiry.stateMachine().getRole()));
        String tableId = template.logicalId(((DemoTableStack) demo.stack()).table());

        List<JsonNode> deletes = allowing(statements, "dynamodb:DeleteItem");
        assertThat(deletes).hasSize(1);
        assertThat(actions(deletes.get(0))).containsExactly("dynamodb:DeleteItem");
        assertThat(renderedResources(deletes.get(0))).containsExactly("${" + tableId + ".Arn}");

        List<JsonNode> starts = allowing(statements, "states:StartExecution");
        assertThat(starts).hasSize(1);
        assertThat(actions(starts.get(0))).containsExactly("states:StartExecution");
        // Its own ARN, built from the name the state machine resource is given (no reference cycle).
        assertThat(renderedResources(starts.get(0))).containsExactly("arn:${AWS::Partition}:states:${AWS::Region}:"
                + "${AWS::AccountId}:stateMachine:" + template.propertiesOf(expiry.stateMachine()).path("StateMachineName").asText());

        assertThat(statements.stream().flatMap(s -> actions(s).stream()).filter(a -> a.startsWith("dynamodb:")))
                .containsExactly("dynamodb:DeleteItem");
    }

    @Test
    void functionRole_startsThisStateMachine_andDescribesAndStopsOnlyItsExecutions() {
        List<JsonNode> statements = template.statementsOfRole(template.logicalId(expiry.functionRole()));

        List<JsonNode> starts = allowing(statements, "states:StartExecution");
        assertThat(starts).hasSize(1);
        assertThat(renderedResources(starts.get(0))).containsExactly("${" + template.logicalId(expiry.stateMachine()) + "}");

        String executions = "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:"
                + expiry.stateMachineName() + ":*";
        for (String action : List.of("states:DescribeExecution", "states:StopExecution")) {
            List<JsonNode> granted = allowing(statements, action);
            assertThat(granted).as(action).hasSize(1);
            assertThat(renderedResources(granted.get(0))).as(action).containsExactly(executions);
        }
        Set<String> stepFunctionsActions = statements.stream().flatMap(s -> actions(s).stream())
                .filter(a -> a.startsWith("states:")).collect(Collectors.toSet());
        assertThat(stepFunctionsActions)
                .containsExactlyInAnyOrder("states:StartExecution", "states:DescribeExecution", "states:StopExecution");
    }

    @Test
    void functionRole_readsOnlyThisStream_andWritesOnlyItsLogGroup() {
        List<JsonNode> statements = template.statementsOfRole(template.logicalId(expiry.functionRole()));
        String tableId = template.logicalId(((DemoTableStack) demo.stack()).table());
        assertThat(renderedResources(allowing(statements, "dynamodb:GetRecords").get(0)))
                .containsExactly("${" + tableId + ".StreamArn}");
        assertThat(renderedResources(allowing(statements, "logs:PutLogEvents").get(0)))
                .containsExactly("${" + template.logicalId(expiry.functionLogs()) + ".Arn}");
        assertThat(template.propertiesOf(expiry.functionRole()).path("ManagedPolicyArns").isMissingNode()).isTrue();
    }

    @Test
    void wildcardResources_appearOnlyForActionsWithoutResourceLevelPermissions() {
        assertThat(WildcardGrants.actionsOnAnyResource(template.allStatements()))
                .isSubsetOf(WildcardGrants.JUSTIFIED)
                .contains("dynamodb:ListStreams", "logs:CreateLogDelivery")
                .noneMatch(action -> action.startsWith("xray:"));
    }

    @Test
    void alarms_watchIteratorAge_errors_deadLetters_failedAndTimedOutExecutions() {
        Map<String, JsonNode> alarms = template.ofType("AWS::CloudWatch::Alarm");
        assertThat(alarms).hasSize(7);
        Map<String, JsonNode> byMetric = alarms.values().stream()
                .collect(Collectors.toMap(a -> a.path("MetricName").asText(), a -> a));
        assertThat(byMetric.keySet()).containsExactlyInAnyOrder("IteratorAge", "Errors",
                "ApproximateNumberOfMessagesVisible", "ExecutionsFailed", "ExecutionsTimedOut",
                // The handler's own metrics, asserted in ObservabilityTemplateTest.
                dev.punctual.statemachine.ExpiryMetricNames.EXPIRY_LAG,
                dev.punctual.statemachine.ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL);

        assertAlarm(byMetric.get("IteratorAge"), "AWS/Lambda", "Maximum", 60_000, "GreaterThanThreshold",
                "${" + template.logicalId(expiry.function()) + "}");
        assertAlarm(byMetric.get("Errors"), "AWS/Lambda", "Sum", 1, "GreaterThanOrEqualToThreshold",
                "${" + template.logicalId(expiry.function()) + "}");
        assertAlarm(byMetric.get("ApproximateNumberOfMessagesVisible"), "AWS/SQS", "Maximum", 1,
                "GreaterThanOrEqualToThreshold", "${" + template.logicalId(expiry.deadLetterQueue()) + ".QueueName}");
        assertAlarm(byMetric.get("ExecutionsFailed"), "AWS/States", "Sum", 1, "GreaterThanOrEqualToThreshold",
                "${" + template.logicalId(expiry.stateMachine()) + "}");
        assertAlarm(byMetric.get("ExecutionsTimedOut"), "AWS/States", "Sum", 1, "GreaterThanOrEqualToThreshold",
                "${" + template.logicalId(expiry.stateMachine()) + "}");
        assertThat(alarms.values()).allSatisfy(alarm -> {
            assertThat(alarm.path("TreatMissingData").asText()).isEqualTo("notBreaching");
            assertThat(alarm.path("AlarmActions").isMissingNode()).isTrue();
        });
        assertThat(expiry.alarms().all()).hasSize(7);
    }

    private static void assertAlarm(JsonNode alarm, String namespace, String statistic, double threshold,
            String comparison, String dimensionValue) {
        assertThat(alarm.path("Namespace").asText()).isEqualTo(namespace);
        assertThat(alarm.path("Statistic").asText()).isEqualTo(statistic);
        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(threshold);
        assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo(comparison);
        assertThat(alarm.path("EvaluationPeriods").asInt()).isEqualTo(1);
        assertThat(render(alarm.at("/Dimensions/0/Value"))).isEqualTo(dimensionValue);
    }
}
