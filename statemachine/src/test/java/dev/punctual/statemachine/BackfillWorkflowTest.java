package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackfillWorkflowTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:punctual-backfill";

    private static JsonNode definition() throws Exception {
        return JSON.readTree(StateMachineDefinitions.backfill("aws", FUNCTION));
    }

    @Test
    void backfillTemplate_placeholders_areExactlyTheKnownSubstitutions() {
        assertThat(StateMachineDefinitions.placeholders(StateMachineDefinitions.backfillTemplate()))
                .isEqualTo(BackfillWorkflow.substitutions("aws", FUNCTION).keySet());
    }

    @Test
    void backfill_preparesThenMapsOverTheSegmentsLeft_eachLoopingOverItsPages() throws Exception {
        JsonNode definition = definition();
        JsonNode map = definition.at("/States/ScanSegments");

        assertThat(definition.path("StartAt").asText()).isEqualTo("PrepareRun");
        assertThat(definition.at("/States/PrepareRun/Parameters/Payload/action").asText()).isEqualTo(BackfillWorkflow.ACTION_PREPARE);
        assertThat(definition.at("/States/PrepareRun/Parameters/FunctionName").asText()).isEqualTo(FUNCTION);
        assertThat(map.path("ItemsPath").asText()).isEqualTo("$." + BackfillWorkflow.SEGMENT_LIST);
        assertThat(map.path("MaxConcurrency").asInt()).isEqualTo(BackfillWorkflow.MAX_SEGMENTS);
        assertThat(map.at("/ItemSelector/action").asText()).isEqualTo(BackfillWorkflow.ACTION_SCAN_PAGE);
        assertThat(map.at("/ItemSelector/segment.$").asText()).isEqualTo("$$.Map.Item.Value");
        assertThat(map.at("/ItemSelector/pagesLeft.$").asText()).isEqualTo("$." + BackfillWorkflow.PAGES_PER_SEGMENT);
        assertThat(map.at("/ItemProcessor/States/MorePages/Choices/0/Variable").asText()).isEqualTo("$." + BackfillWorkflow.MORE);
        assertThat(map.at("/ItemProcessor/States/MorePages/Choices/0/Next").asText()).isEqualTo("ScanPage");
        assertThat(map.path("ResultPath").isNull()).as("segment results are in the progress table, not the state").isTrue();
        assertThat(definition.at("/States/FinishRun/Parameters/Payload/action").asText()).isEqualTo(BackfillWorkflow.ACTION_FINISH);
    }

    @Test
    void backfill_neverRetriesBadInput_butRetriesEverythingElse() throws Exception {
        JsonNode definition = definition();
        for (JsonNode task : List.of(definition.at("/States/PrepareRun"), definition.at("/States/ScanSegments/ItemProcessor/States/ScanPage"))) {
            assertThat(task.at("/Retry/0/ErrorEquals/0").asText()).isEqualTo(BackfillWorkflow.ERROR_INPUT);
            assertThat(task.at("/Retry/0/MaxAttempts").asInt()).isZero();
            assertThat(task.at("/Retry/1/ErrorEquals/0").asText()).isEqualTo("States.ALL");
            assertThat(task.path("TimeoutSeconds").asLong()).isGreaterThan(BackfillWorkflow.FUNCTION_TIMEOUT.toSeconds());
        }
    }

    @Test
    void backfill_continuesAsASuccessorWithThisExecutionsInputLessRestart() throws Exception {
        JsonNode definition = definition();

        assertThat(definition.at("/States/RunComplete/Choices/0/Variable").asText()).isEqualTo("$." + BackfillWorkflow.COMPLETE);
        assertThat(definition.at("/States/ContinueAsNewExecution/Resource").asText()).isEqualTo("arn:aws:states:::states:startExecution");
        assertThat(definition.at("/States/ContinueAsNewExecution/Parameters/Name.$").asText()).isEqualTo("$." + BackfillWorkflow.SUCCESSOR);
        assertThat(definition.at("/States/ContinueAsNewExecution/Parameters/Input.$").asText())
                .isEqualTo("$." + BackfillWorkflow.SUCCESSOR_INPUT);
        assertThat(definition.at("/States/FinishRun/Parameters/Payload/input.$").asText()).isEqualTo("$$.Execution.Input");
    }

    @Test
    void pagesPerSegment_keepsAnExecutionsHistoryUnderItsLimit() {
        for (int segments = 1; segments <= BackfillWorkflow.MAX_SEGMENTS; segments++) {
            int events = BackfillWorkflow.pagesPerSegment(segments) * segments * BackfillWorkflow.HISTORY_EVENTS_PER_PAGE;
            assertThat(events).as("%d segments", segments).isLessThanOrEqualTo(BackfillWorkflow.HISTORY_EVENTS_FOR_PAGES);
        }
        assertThat(BackfillWorkflow.HISTORY_EVENTS_FOR_PAGES).isLessThan(25_000);
    }

    @Test
    void backfill_everyStateIsReachable() throws Exception {
        JsonNode states = definition().path("States");
        List<String> names = new ArrayList<>();
        states.fieldNames().forEachRemaining(names::add);
        String text = definition().toString();
        for (String name : names) {
            if (!name.equals("PrepareRun")) {
                assertThat(text).as("something leads to %s", name).containsPattern("\"(Next|Default)\":\"" + name + "\"");
            }
        }
    }
}
