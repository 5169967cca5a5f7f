package dev.punctual.cdk;

import static dev.punctual.cdk.TemplateJson.JSON;
import static dev.punctual.cdk.TemplateJson.actions;
import static dev.punctual.cdk.TemplateJson.allowing;
import static dev.punctual.cdk.TemplateJson.render;
import static dev.punctual.cdk.TemplateJson.renderedResources;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.statemachine.StreamWiring;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Attached to a table this app does not manage, with every option moved off its default. */
class ExistingTableStackTest {

    private static TemplateJson template;
    private static PunctualExpiry expiry;

    @BeforeAll
    static void synthesize() {
        SynthesizedStacks.Synthesized attached = SynthesizedStacks.attached();
        template = attached.template();
        expiry = attached.expiry();
    }

    @Test
    void noTableIsCreated_andTheGivenStreamIsWired() {
        assertThat(template.ofType("AWS::DynamoDB::Table").keySet()).as("the backfill's progress table, never the user's")
                .containsExactly(template.logicalId(expiry.backfill().progressTable()));
        JsonNode mapping = template.single("AWS::Lambda::EventSourceMapping");
        assertThat(mapping.path("EventSourceArn").asText()).isEqualTo(SynthesizedStacks.ATTACHED_STREAM_ARN);
        List<JsonNode> statements = template.statementsOfRole(template.logicalId(expiry.functionRole()));
        assertThat(renderedResources(allowing(statements, "dynamodb:GetRecords").get(0)))
                .containsExactly(SynthesizedStacks.ATTACHED_STREAM_ARN);
    }

    @Test
    void stateMachine_deletesOnlyFromTheNamedTable() {
        List<JsonNode> deletes = allowing(
                template.statementsOfRole(template.logicalId(expiry.stateMachine().getRole())), "dynamodb:DeleteItem");
        assertThat(deletes).hasSize(1);
        assertThat(renderedResources(deletes.get(0))).containsExactly(
                "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/" + SynthesizedStacks.ATTACHED_TABLE);
    }

    @Test
    void tuning_reachesTheEventSourceMapping() {
        JsonNode mapping = template.single("AWS::Lambda::EventSourceMapping");
        assertThat(mapping.path("BatchSize").asInt()).isEqualTo(500);
        assertThat(mapping.path("ParallelizationFactor").asInt()).isEqualTo(4);
        assertThat(mapping.path("MaximumRetryAttempts").asInt()).isEqualTo(3);
        assertThat(mapping.path("MaximumRecordAgeInSeconds").asInt()).isEqualTo(7200);
        assertThat(mapping.path("StartingPosition").asText()).isEqualTo("TRIM_HORIZON");
    }

    @Test
    void withoutCancelStale_oldImagesStillPassForTheLagMetric_butExecutionsAreNotStopped() throws JsonProcessingException {
        JsonNode filters = template.single("AWS::Lambda::EventSourceMapping").at("/FilterCriteria/Filters");
        List<JsonNode> deployed = new ArrayList<>();
        for (JsonNode filter : filters) {
            deployed.add(JSON.readTree(filter.path("Pattern").asText()));
        }
        List<JsonNode> expected = new ArrayList<>();
        for (String pattern : StreamWiring.filterPatterns(SynthesizedStacks.ATTACHED_TTL, true)) {
            expected.add(JSON.readTree(pattern));
        }
        assertThat(deployed).hasSize(3).isEqualTo(expected);

        List<JsonNode> statements = template.statementsOfRole(template.logicalId(expiry.functionRole()));
        assertThat(allowing(statements, "states:StopExecution")).isEmpty();
        assertThat(allowing(statements, "states:DescribeExecution")).hasSize(1);
        JsonNode variables = template.propertiesOf(expiry.function()).at("/Environment/Variables");
        assertThat(variables.path(StreamWiring.ENV_CANCEL_STALE).asText()).isEqualTo("false");
        assertThat(variables.path(StreamWiring.ENV_TTL_ATTRIBUTE).asText()).isEqualTo(SynthesizedStacks.ATTACHED_TTL);
        assertThat(variables.path(StreamWiring.ENV_MAX_CONCURRENCY).asText()).isEqualTo("64");
        assertThat(variables.path("POWERTOOLS_LOG_LEVEL").asText()).isEqualTo("DEBUG");
    }

    @Test
    void tracing_isActiveOnFunctionAndStateMachine_withOnlyXrayAddedOnAnyResource() {
        assertThat(template.propertiesOf(expiry.function()).at("/TracingConfig/Mode").asText()).isEqualTo("Active");
        assertThat(template.propertiesOf(expiry.stateMachine()).at("/TracingConfiguration/Enabled").asBoolean())
                .isTrue();
        assertThat(WildcardGrants.actionsOnAnyResource(template.allStatements()))
                .isSubsetOf(WildcardGrants.JUSTIFIED)
                .contains("xray:PutTraceSegments");
    }

    @Test
    void everyAlarm_notifiesTheTopic_whenFiringAndWhenClearing() {
        assertThat(template.ofType("AWS::CloudWatch::Alarm").values()).hasSize(7).allSatisfy(alarm -> {
            assertThat(alarm.path("AlarmActions").toString()).isEqualTo("[\"" + SynthesizedStacks.ALARM_TOPIC_ARN + "\"]");
            assertThat(alarm.path("OKActions").toString()).isEqualTo("[\"" + SynthesizedStacks.ALARM_TOPIC_ARN + "\"]");
        });
    }

    @Test
    void stateMachineName_differsFromTheDemoStacks() {
        assertThat(expiry.stateMachineName()).isNotEqualTo(SynthesizedStacks.demo().expiry().stateMachineName());
        assertThat(render(template.propertiesOf(expiry.stateMachine()).path("StateMachineName")))
                .isEqualTo(expiry.stateMachineName());
        List<JsonNode> selfStarts = allowing(
                template.statementsOfRole(template.logicalId(expiry.stateMachine().getRole())), "states:StartExecution");
        assertThat(actions(selfStarts.get(0))).containsExactly("states:StartExecution");
        assertThat(renderedResources(selfStarts.get(0))).singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .endsWith(":stateMachine:" + expiry.stateMachineName());
    }
}
