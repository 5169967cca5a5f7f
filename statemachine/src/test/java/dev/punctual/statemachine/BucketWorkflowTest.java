package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class BucketWorkflowTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:bucket:live";

    @Test
    void expireBucket_whenRendered_waitsOnWakeAtAndInvokesTheBucketFunction() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.expireBucket("aws", FUNCTION));

        assertThat(definition.path("StartAt").asText()).isEqualTo("WaitUntilDue");
        assertThat(definition.at("/States/WaitUntilDue/TimestampPath").asText()).isEqualTo("$." + BucketWorkflow.WAKE_AT);
        assertThat(definition.at("/States/WorkBucket/Resource").asText()).isEqualTo("arn:aws:states:::lambda:invoke");
        assertThat(definition.at("/States/WorkBucket/Parameters/FunctionName").asText()).isEqualTo(FUNCTION);
        assertThat(definition.at("/States/WorkBucket/End").asBoolean()).isTrue();
    }

    @Test
    void expireBucketTemplate_placeholders_areExactlyTheKnownSubstitutions() {
        assertThat(StateMachineDefinitions.placeholders(StateMachineDefinitions.expireBucketTemplate()))
                .isEqualTo(BucketWorkflow.substitutions("aws", FUNCTION).keySet());
    }

    @Test
    void expireBucket_retriesTheWholeBucketOnAnyError_becauseTheFunctionIsIdempotent() throws Exception {
        JsonNode retry = JSON.readTree(StateMachineDefinitions.expireBucket("aws", FUNCTION)).at("/States/WorkBucket/Retry/0");

        assertThat(retry.path("ErrorEquals").get(0).asText()).isEqualTo("States.ALL");
        assertThat(retry.path("MaxAttempts").asInt()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void expiryMode_fromLabel_readsLabelsAndRefusesOthersNamingTheChoices() {
        assertThat(ExpiryMode.fromLabel(" Windowed ")).isEqualTo(ExpiryMode.WINDOWED);
        assertThat(ExpiryMode.fromLabel("per-item")).isEqualTo(ExpiryMode.PER_ITEM);
        assertThatThrownBy(() -> ExpiryMode.fromLabel("bucketed"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("per-item, windowed");
    }
}
