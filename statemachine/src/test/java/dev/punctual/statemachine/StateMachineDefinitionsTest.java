package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StateMachineDefinitionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void expireItem_whenRendered_isValidJsonWithNoPlaceholderLeft() throws Exception {
        String rendered = StateMachineDefinitions.expireItem("aws");

        assertThat(rendered).doesNotContain("${");
        JsonNode definition = JSON.readTree(rendered);
        assertThat(definition.path("StartAt").asText()).isEqualTo("BeyondHorizon");
        assertThat(definition.at("/States/DeleteIfUnchanged/Resource").asText())
                .isEqualTo("arn:aws:states:::dynamodb:deleteItem");
    }

    @Test
    void expireItemTemplate_placeholders_areExactlyTheKnownSubstitutions() {
        Set<String> placeholders = StateMachineDefinitions.placeholders(StateMachineDefinitions.expireItemTemplate());

        assertThat(placeholders).isEqualTo(ExpiryWorkflow.substitutions("aws").keySet());
    }

    @Test
    void expireItem_everyNextAndDefault_namesAnExistingState() throws Exception {
        JsonNode states = JSON.readTree(StateMachineDefinitions.expireItem("aws")).path("States");
        List<String> targets = new ArrayList<>();
        collectTargets(states, targets);

        assertThat(targets).isNotEmpty();
        for (String target : targets) {
            assertThat(states.has(target)).as("state '%s' exists", target).isTrue();
        }
    }

    @Test
    void expireItem_everyStateIsReachableFromStartAt() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.expireItem("aws"));
        JsonNode states = definition.path("States");
        Set<String> reached = new java.util.HashSet<>();
        java.util.Deque<String> todo = new java.util.ArrayDeque<>(List.of(definition.path("StartAt").asText()));
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (reached.add(name)) {
                List<String> next = new ArrayList<>();
                collectTargets(states.path(name), next);
                todo.addAll(next);
            }
        }
        List<String> all = new ArrayList<>();
        states.fieldNames().forEachRemaining(all::add);

        assertThat(reached).containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void expireItem_deletesOnlyWhenTheTtlStillMatches() throws Exception {
        JsonNode delete = JSON.readTree(StateMachineDefinitions.expireItem("aws")).at("/States/DeleteIfUnchanged");
        JsonNode parameters = delete.path("Parameters");

        assertThat(parameters.path("ConditionExpression").asText()).isEqualTo("#ttl = :ttl");
        assertThat(parameters.at("/ExpressionAttributeNames/#ttl.$").asText()).isEqualTo("$." + ExpiryWorkflow.TTL_ATTRIBUTE);
        assertThat(parameters.at("/ExpressionAttributeValues/:ttl/N.$").asText()).isEqualTo("$." + ExpiryWorkflow.TTL);
        assertThat(parameters.path("TableName.$").asText()).isEqualTo("$." + ExpiryWorkflow.TABLE);
        assertThat(parameters.path("Key.$").asText()).isEqualTo("$." + ExpiryWorkflow.KEY);
        assertThat(delete.at("/Catch/0/ErrorEquals/0").asText()).isEqualTo("DynamoDB.ConditionalCheckFailedException");
        // never retried: a retrier with no attempts for it sits ahead of the one that retries everything else
        assertThat(delete.at("/Retry/0/ErrorEquals").toString()).isEqualTo("[\"DynamoDB.ConditionalCheckFailedException\"]");
        assertThat(delete.at("/Retry/0/MaxAttempts").asInt(-1)).isZero();
        assertThat(delete.at("/Retry/1/ErrorEquals").toString()).isEqualTo("[\"States.ALL\"]");
    }

    @Test
    void expireItem_waitsOnTheRoundedUpExpiryInstant() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.expireItem("aws"));

        assertThat(definition.at("/States/WaitUntilExpiry/TimestampPath").asText()).isEqualTo("$." + ExpiryWorkflow.EXPIRE_AT);
    }

    @Test
    void expireItem_horizonWait_equalsTheContractHorizon() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.expireItem("aws"));

        assertThat(definition.at("/States/WaitOneHorizon/Seconds").asLong()).isEqualTo(ExpiryWorkflow.HORIZON.toSeconds());
        assertThat(ExpiryWorkflow.HORIZON.toDays()).isLessThan(365);
    }

    @Test
    void expireItem_successorInput_carriesEveryInputField() throws Exception {
        JsonNode parameters = JSON.readTree(StateMachineDefinitions.expireItem("aws")).at("/States/PrepareSuccessor/Parameters");
        List<String> fields = new ArrayList<>();
        parameters.fieldNames().forEachRemaining(name -> fields.add(name.replace(".$", "")));

        assertThat(fields).containsExactlyInAnyOrder(Contract.FIELD, ExpiryWorkflow.TABLE, ExpiryWorkflow.KEY,
                ExpiryWorkflow.TTL_ATTRIBUTE, ExpiryWorkflow.TTL, ExpiryWorkflow.EXPIRE_AT, ExpiryWorkflow.HORIZON_HOPS,
                ExpiryWorkflow.CHAIN_NAME);
    }

    @Test
    void expireItem_successorInput_carriesTheContractVersionTheDefinitionReads() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.expireItem("aws"));

        assertThat(definition.at("/States/PrepareSuccessor/Parameters/" + Contract.FIELD).asInt())
                .isEqualTo(Contract.EXPIRE_ITEM_INPUT.version());
        // The first Choice refuses any other version: the rule names the one version it lets through.
        JsonNode refusal = definition.at("/States/BeyondHorizon/Choices/0");
        assertThat(refusal.path("Next").asText()).isEqualTo("UnsupportedContract");
        assertThat(refusal.at("/And/1/Not/NumericEquals").asInt()).isEqualTo(Contract.EXPIRE_ITEM_INPUT.version());
        assertThat(definition.at("/States/UnsupportedContract/Error").asText()).isEqualTo("Punctual.UnsupportedContract");
    }

    @Test
    void backfill_everyFunctionPayload_carriesTheStepContractVersion() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.backfill("aws", "arn:aws:lambda:us-east-1:1:function:f"));

        assertThat(definition.at("/States/PrepareRun/Parameters/Payload/" + Contract.FIELD).asInt())
                .isEqualTo(Contract.BACKFILL_STEP.version());
        assertThat(definition.at("/States/ScanSegments/ItemSelector/" + Contract.FIELD).asInt())
                .isEqualTo(Contract.BACKFILL_STEP.version());
        assertThat(definition.at("/States/FinishRun/Parameters/Payload/" + Contract.FIELD).asInt())
                .isEqualTo(Contract.BACKFILL_STEP.version());
    }

    @Test
    void render_whenPlaceholderHasNoValue_namesIt() {
        assertThatThrownBy(() -> StateMachineDefinitions.render("{\"a\":\"${Missing}\"}", Map.of("Other", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("${Missing}");
    }

    @Test
    void render_replacesEveryOccurrenceLiterally() {
        String rendered = StateMachineDefinitions.render("${A}-${A}-${B}", Map.of("A", "$1\\x", "B", "b"));

        assertThat(rendered).isEqualTo("$1\\x-$1\\x-b");
    }

    private static void collectTargets(JsonNode node, List<String> targets) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                if ((field.getKey().equals("Next") || field.getKey().equals("Default")) && field.getValue().isTextual()) {
                    targets.add(field.getValue().asText());
                } else {
                    collectTargets(field.getValue(), targets);
                }
            }
        } else if (node.isArray()) {
            node.forEach(child -> collectTargets(child, targets));
        }
    }
}
