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
 * machine, its only target is the bucket function's alias (retried up to EventBridge's limits), only
 * this rule may invoke it that way, the function may start and describe only this state machine's
 * executions, and two alarms watch what healing cannot fix.
 */
class BucketHealingTemplateTest {

    static Stream<Arguments> windowedConfigurations() {
        return Stream.of(Arguments.of("windowed", SynthesizedStacks.windowed()),
                Arguments.of("windowed attached", SynthesizedStacks.windowedAttached()));
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
        assertThat(rules).hasSize(1);
        JsonNode rule = rules.values().iterator().next();
        JsonNode pattern = rule.path("EventPattern");
        JsonNode rendered = JSON.readTree(pattern.toString().replace(pattern.at("/detail/stateMachineArn/0").toString(),
                JSON.writeValueAsString(render(pattern.at("/detail/stateMachineArn/0")))));

        assertThat(rendered).isEqualTo(JSON.readTree(ExecutionStatusEvents.unfinishedPattern(bucketStateMachineArn(synthesized))));
        assertThat(rule.path("EventBusName").isMissingNode()).as("Step Functions publishes to the default bus").isTrue();
        assertThat(rule.path("State").asText()).isEqualTo("ENABLED");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("windowedConfigurations")
    void target_isTheBucketFunctionsAlias_retriedForADay_andOnlyThisRuleMayInvokeIt(String name,
            SynthesizedStacks.Synthesized synthesized) {
        TemplateJson template = synthesized.template();
        String ruleId = template.ofType("AWS::Events::Rule").keySet().iterator().next();
        JsonNode targets = template.resources().path(ruleId).at("/Properties/Targets");
        String alias = "${" + template.logicalId(synthesized.expiry().bucketAlias().orElseThrow()) + "}";

        assertThat(targets).hasSize(1);
        JsonNode target = targets.get(0);
        assertThat(render(target.path("Arn"))).isEqualTo(alias);
        assertThat(target.at("/RetryPolicy/MaximumEventAgeInSeconds").asInt()).isEqualTo(86_400);
        assertThat(target.at("/RetryPolicy/MaximumRetryAttempts").asInt()).isEqualTo(BucketHealing.RETRY_ATTEMPTS);
        assertThat(target.path("RoleArn").isMissingNode()).as("a function target needs no role, only a resource policy").isTrue();
        assertThat(target.path("Input").isMissingNode()).as("the function gets the event as Step Functions wrote it").isTrue();
        List<JsonNode> permissions = template.ofType("AWS::Lambda::Permission").values().stream()
                .filter(p -> "events.amazonaws.com".equals(p.path("Principal").asText()))
                .toList();
        assertThat(permissions).singleElement().satisfies(permission -> {
            assertThat(permission.path("Action").asText()).isEqualTo("lambda:InvokeFunction");
            assertThat(render(permission.path("FunctionName"))).isEqualTo(alias);
            assertThat(render(permission.path("SourceArn"))).isEqualTo("${" + ruleId + ".Arn}");
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("windowedConfigurations")
    void bucketFunction_mayStartAndDescribeOnlyThisStateMachinesExecutions(String name, SynthesizedStacks.Synthesized synthesized) {
        TemplateJson template = synthesized.template();
        String role = template.logicalId(synthesized.expiry().bucketFunctionRole().orElseThrow());
        String machine = bucketStateMachineArn(synthesized);
        List<JsonNode> states = template.statementsOfRole(role).stream()
                .filter(s -> actions(s).stream().anyMatch(a -> a.startsWith("states:")))
                .toList();

        assertThat(states).flatExtracting(TemplateJson::actions)
                .containsExactlyInAnyOrder("states:StartExecution", "states:DescribeExecution");
        for (JsonNode statement : states) {
            String expected = actions(statement).contains("states:StartExecution") ? machine
                    : machine.replace(":stateMachine:", ":execution:") + ":*";
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
        String ruleId = template.ofType("AWS::Events::Rule").keySet().iterator().next();

        assertThat(failed.path("Namespace").asText()).isEqualTo("AWS/Events");
        assertThat(failed.path("MetricName").asText()).isEqualTo("FailedInvocations");
        assertThat(render(failed.at("/Dimensions/0/Value"))).isEqualTo("${" + ruleId + "}");
        assertThat(abandoned.path("Namespace").asText()).isEqualTo(ExpiryMetricNames.NAMESPACE);
        assertThat(abandoned.path("MetricName").asText()).isEqualTo(BucketHealing.BUCKETS_ABANDONED);
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
