package dev.punctual.cdk;

import static dev.punctual.cdk.TemplateJson.actions;
import static dev.punctual.cdk.TemplateJson.allowing;
import static dev.punctual.cdk.TemplateJson.render;
import static dev.punctual.cdk.TemplateJson.renderedResources;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.StreamWiring;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.StreamViewType;
import software.amazon.awscdk.services.dynamodb.Table;

/**
 * Expiry events in the template: off unless asked for; when asked, {@code events:PutEvents} on that one
 * bus for the stream function alone, and the bus and the old-image switch in its environment.
 */
class ExpiryEventsTemplateTest {

    static Stream<SynthesizedStacks.Synthesized> withoutEvents() {
        return Stream.of(SynthesizedStacks.demo(), SynthesizedStacks.windowed());
    }

    @ParameterizedTest
    @MethodSource("withoutEvents")
    void byDefault_noPermissionAndNoBusInTheEnvironment(SynthesizedStacks.Synthesized synthesized) {
        TemplateJson template = synthesized.template();

        // Windowed mode's bucket machine holds events:PutRule/PutTargets/DescribeRule on the rule Step Functions
        // manages for .sync (WindowedStackTemplateTest); sending events is what expiry events add.
        assertThat(template.allStatements()).noneMatch(statement -> actions(statement).stream()
                .anyMatch(a -> a.equals("events:PutEvents") || a.equals("events:*")));
        JsonNode variables = template.propertiesOf(synthesized.expiry().function()).at("/Environment/Variables");
        assertThat(variables.has(ExpiryEvents.ENV_EVENT_BUS)).isFalse();
        assertThat(variables.has(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE)).isFalse();
    }

    @Test
    void withABus_thePutEventsGrantIsThatBusAlone_forTheStreamFunctionAlone() {
        SynthesizedStacks.Synthesized attached = SynthesizedStacks.attached();
        TemplateJson template = attached.template();

        List<JsonNode> grants = allowing(template.allStatements(), "events:PutEvents");
        assertThat(grants).hasSize(1);
        assertThat(actions(grants.get(0))).containsExactly("events:PutEvents");
        assertThat(renderedResources(grants.get(0))).containsExactly(SynthesizedStacks.EVENT_BUS_ARN);
        assertThat(allowing(template.statementsOfRole(template.logicalId(attached.expiry().functionRole())), "events:PutEvents"))
                .containsExactlyElementsOf(grants);
        JsonNode variables = template.propertiesOf(attached.expiry().function()).at("/Environment/Variables");
        assertThat(variables.path(ExpiryEvents.ENV_EVENT_BUS).asText()).isEqualTo(SynthesizedStacks.EVENT_BUS_ARN);
        assertThat(variables.path(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE).asText()).isEqualTo("true");
    }

    @Test
    void withTheDefaultBus_theGrantNamesTheDefaultBusOfTheStacksAccountAndRegion() {
        SynthesizedStacks.Synthesized windowed = SynthesizedStacks.windowedAttached();
        TemplateJson template = windowed.template();

        List<JsonNode> grants = allowing(template.allStatements(), "events:PutEvents");
        assertThat(grants).hasSize(1);
        assertThat(renderedResources(grants.get(0)))
                .containsExactly("arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/default");
        JsonNode variables = template.propertiesOf(windowed.expiry().function()).at("/Environment/Variables");
        assertThat(render(variables.path(ExpiryEvents.ENV_EVENT_BUS)))
                .isEqualTo("arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/default");
        assertThat(variables.has(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE)).as("old images stay off unless asked for").isFalse();
    }

    @Test
    void withEvents_theStreamFilterIsUnchanged() {
        // A delete's REMOVE record carries the old image, which the third pattern already lets through.
        for (SynthesizedStacks.Synthesized synthesized : List.of(SynthesizedStacks.attached(), SynthesizedStacks.windowedAttached())) {
            JsonNode filters = synthesized.template().single("AWS::Lambda::EventSourceMapping").at("/FilterCriteria/Filters");
            List<String> patterns = new ArrayList<>();
            filters.forEach(filter -> patterns.add(filter.path("Pattern").asText()));
            assertThat(patterns).containsExactlyElementsOf(StreamWiring.filterPatterns(SynthesizedStacks.ATTACHED_TTL, true));
        }
    }

    @Test
    void includeOldImage_withoutABus_isRefusedWithWhatToDo() {
        Stack stack = new Stack(new App(), "NoBus");
        Table table = Table.Builder.create(stack, "T").partitionKey(Attribute.builder().name("id").type(AttributeType.STRING).build())
                .stream(StreamViewType.NEW_AND_OLD_IMAGES).build();

        assertThatThrownBy(() -> PunctualExpiryProps.builder().table(table).ttlAttribute("ttl").includeOldImage(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expiryEvents(bus)");
    }
}
