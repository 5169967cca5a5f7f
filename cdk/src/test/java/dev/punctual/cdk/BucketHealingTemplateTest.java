package dev.punctual.cdk;

import static dev.punctual.cdk.TemplateJson.JSON;
import static dev.punctual.cdk.TemplateJson.actions;
import static dev.punctual.cdk.TemplateJson.render;
import static dev.punctual.cdk.TemplateJson.renderedResources;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.statemachine.ExecutionStatusEvents;
import dev.punctual.statemachine.ExpiryMetricNames;
import dev.punctual.statemachine.StreamWiring;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Windowed mode's healing in the template: the rule matches exactly the pattern the local runtime
 * routes with ({@link ExecutionStatusEvents#unfinishedPattern}) on this construct's bucket state
 * machine, the sweep's rule runs at the runtime's interval, their only target is the bucket
 * function's alias (retried up to EventBridge's limits), only they may invoke it that way, the
 * function may start, list and describe only this state machine's executions, and two alarms watch
 * what healing cannot fix.
 */
class BucketHealingTemplateTest {

    static Stream<Arguments> windowedConfigurations() {
        return Stream.of(Arguments.of("windowed", SynthesizedStacks.windowed()),
                Arguments.of("windowed attached", SynthesizedStacks.windowedAttached()));
    }

    /** The logical ID of the rule on status changes (it has a pattern) or of the sweep's (it has a schedule). */
    private static String ruleId(TemplateJson template, String property) {
        return template.ofType("AWS::Events::Rule").entrySet().stream().filter(e -> e.getValue().has(property))
                .map(Map.Entry::getKey).findFirst().orElseThrow();
    }

    private static String bucketStateMachineArn(SynthesizedStacks.Synthesized synthesized) {
        JsonNode function = synthesized.template().propertiesOf(synthesized.expiry().bucketFunction().orElseThrow());
        return render(function.at("/Environment/Variables/" + StreamWiring.ENV_STATE_MACHINE_ARN));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("windowedConfigurations")
    void rule_matchesUnfinishedExecutionsOfThisBucketStateMachine_exactlyAsTheLocalRuntimeRoutes(String name,
            SynthesizedStacks.Synthesized synthesized) throws Exception {
        Map<String, JsonNode> rules = synthesized.template().ofType("AWS::Events::Rule");
        assertThat(rules).as("the status-change rule and the sweep's").hasSize(2);
        JsonNode rule = rules.get(ruleId(synthesized.template(), "EventPattern"));
        JsonNode pattern = rule.path("EventPattern");
        JsonNode rendered = JSON.readTree(pattern.toString().replace(pattern.at("/detail/stateMachineArn/0").toString(),
                JSON.writeValueAsString(render(pattern.at("/detail/stateMachineArn/0")))));

        assertThat(rendered).isEqualTo(JSON.readTree(ExecutionStatusEvents.unfinishedPattern(bucketStateMachineArn(synthesized))));
        assertThat(rule.path("EventBusName").isMissingNode()).as("Step Functions publishes to the default bus").isTrue();
        assertThat(rule.path("State").asText()).isEqualTo("ENABLED");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("windowedConfigurations")
    void sweep_runsEveryIntervalOnTheSameTarget(String name, SynthesizedStacks.Synthesized synthesized) {
        JsonNode sweep = synthesized.template().ofType("AWS::Events::Rule").get(ruleId(synthesized.template(), "ScheduleExpression"));

        assertThat(sweep.path("ScheduleExpression").asText())
                .isEqualTo("rate(" + ExecutionStatusEvents.SWEEP_INTERVAL.toMinutes() + " minutes)");
        assertThat(sweep.path("EventPattern").isMissingNode()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("windowedConfigurations")
    void targets_areTheBucketFunctionsAlias_retriedForADay_andOnlyTheseRulesMayInvokeIt(String name,
            SynthesizedStacks.Synthesized synthesized) {
        TemplateJson template = synthesized.template();
        String alias = "${" + template.logicalId(synthesized.expiry().bucketAlias().orElseThrow()) + "}";
        List<String> rules = List.of(ruleId(template, "EventPattern"), ruleId(template, "ScheduleExpression"));

        for (String ruleId : rules) {
            JsonNode targets = template.resources().path(ruleId).at("/Properties/Targets");
            assertThat(targets).hasSize(1);
            JsonNode target = targets.get(0);
            assertThat(render(target.path("Arn"))).isEqualTo(alias);
            assertThat(target.at("/RetryPolicy/MaximumEventAgeInSeconds").asInt()).isEqualTo(86_400);
            assertThat(target.at("/RetryPolicy/MaximumRetryAttempts").asInt()).isEqualTo(BucketHealingRules.RETRY_ATTEMPTS);
            assertThat(target.path("RoleArn").isMissingNode()).as("a function target needs no role, only a resource policy").isTrue();
            assertThat(target.path("Input").isMissingNode()).as("the function gets the event as it was published").isTrue();
        }
        List<JsonNode> permissions = template.ofType("AWS::Lambda::Permission").values().stream()
                .filter(p -> "events.amazonaws.com".equals(p.path("Principal").asText()))
                .toList();
        assertThat(permissions).hasSize(2).allSatisfy(permission -> {
            assertThat(permission.path("Action").asText()).isEqualTo("lambda:InvokeFunction");
            assertThat(render(permission.path("FunctionName"))).isEqualTo(alias);
        });
        assertThat(permissions).extracting(p -> render(p.path("SourceArn")))
                .containsExactlyInAnyOrder("${" + rules.get(0) + ".Arn}", "${" + rules.get(1) + ".Arn}");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("windowedConfigurations")
    void bucketFunction_mayStartListAndDescribeOnlyThisStateMachinesExecutions(String name, SynthesizedStacks.Synthesized synthesized) {
        TemplateJson template = synthesized.template();
        String role = template.logicalId(synthesized.expiry().bucketFunctionRole().orElseThrow());
        String machine = bucketStateMachineArn(synthesized);
        List<JsonNode> states = template.statementsOfRole(role).stream()
                .filter(s -> actions(s).stream().anyMatch(a -> a.startsWith("states:")))
                .toList();

        assertThat(states).flatExtracting(TemplateJson::actions)
                .containsExactlyInAnyOrder("states:StartExecution", "states:ListExecutions", "states:DescribeExecution");
        for (JsonNode statement : states) {
            String expected = actions(statement).contains("states:DescribeExecution")
                    ? machine.replace(":stateMachine:", ":execution:") + ":*" : machine;
            assertThat(renderedResources(statement)).containsExactly(expected);
        }
        assertThat(template.propertiesOf(synthesized.expiry().bucketFunction().orElseThrow()).path("Timeout").asLong())
                .isEqualTo(StreamWiring.BUCKET_FUNCTION_TIMEOUT.toSeconds());
    }

    @Test
    void alarms_onUndeliveredStatusChanges_andOnAbandonedBuckets_withTheAlarmTopicWhenGiven() {
        TemplateJson template = SynthesizedStacks.windowedAttached().template();
        Map<String, JsonNode> alarms = template.ofType("AWS::CloudWatch::Alarm");
        JsonNode failed = alarms.entrySet().stream().filter(e -> e.getKey().contains("HealingDeliveriesFailed"))
                .map(Map.Entry::getValue).findFirst().orElseThrow();
        JsonNode abandoned = alarms.entrySet().stream().filter(e -> e.getKey().contains("BucketsAbandoned"))
                .map(Map.Entry::getValue).findFirst().orElseThrow();
        List<String> failedOf = new java.util.ArrayList<>();
        failed.path("Metrics").forEach(metric -> {
            if (metric.has("MetricStat")) {
                assertThat(metric.at("/MetricStat/Metric/Namespace").asText()).isEqualTo("AWS/Events");
                assertThat(metric.at("/MetricStat/Metric/MetricName").asText()).isEqualTo("FailedInvocations");
                failedOf.add(render(metric.at("/MetricStat/Metric/Dimensions/0/Value")));
            }
        });

        assertThat(failedOf).containsExactlyInAnyOrder("${" + ruleId(template, "EventPattern") + "}",
                "${" + ruleId(template, "ScheduleExpression") + "}");
        assertThat(abandoned.path("Namespace").asText()).isEqualTo(ExpiryMetricNames.NAMESPACE);
        assertThat(abandoned.path("MetricName").asText()).isEqualTo(BucketHealingRules.BUCKETS_ABANDONED);
        for (JsonNode alarm : List.of(failed, abandoned)) {
            assertThat(alarm.path("Threshold").asDouble()).isEqualTo(1);
            assertThat(alarm.path("AlarmActions").toString()).contains(SynthesizedStacks.ALARM_TOPIC_ARN);
        }
        JsonNode filter = template.single("AWS::Logs::MetricFilter");
        assertThat(filter.path("FilterPattern").asText()).isEqualTo("{ $.outcome = \"abandoned\" }");
        assertThat(render(filter.path("LogGroupName")))
                .isEqualTo("${" + template.logicalId(SynthesizedStacks.windowedAttached().expiry().bucketFunctionLogs().orElseThrow()) + "}");
        assertThat(filter.at("/MetricTransformations/0/Dimensions/0/Value").asText()).isEqualTo("$.table");
    }

    @Test
    void perItemMode_hasNoHealingRule() {
        assertThat(SynthesizedStacks.demo().template().ofType("AWS::Events::Rule")).isEmpty();
        assertThat(SynthesizedStacks.attached().template().ofType("AWS::Events::Rule")).isEmpty();
    }
}
