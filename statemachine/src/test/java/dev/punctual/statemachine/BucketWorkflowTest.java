package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class BucketWorkflowTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:bucket:live";

    private static final String RUNNER = "arn:aws:states:us-east-1:123456789012:stateMachine:punctual-run-bucket";

    @Test
    void expireBucket_whenRendered_waitsOnWakeAtAndRunsTheRunnerToItsEnd() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.expireBucket("aws", RUNNER));

        assertThat(definition.path("StartAt").asText()).isEqualTo("WaitUntilDue");
        assertThat(definition.at("/States/WaitUntilDue/TimestampPath").asText()).isEqualTo("$." + BucketWorkflow.WAKE_AT);
        assertThat(definition.at("/States/RunBucket/Resource").asText()).isEqualTo("arn:aws:states:::states:startExecution.sync:2");
        assertThat(definition.at("/States/RunBucket/Parameters/StateMachineArn").asText()).isEqualTo(RUNNER);
        assertThat(definition.at("/States/RunBucket/Parameters/Input.$").asText()).as("the bucket's input, whole").isEqualTo("$");
        assertThat(definition.at("/States/RunBucket/OutputPath").asText()).as("the runner's output").isEqualTo("$.Output");
        assertThat(definition.at("/States/RunBucket/End").asBoolean()).isTrue();
        assertThat(definition.at("/States/RunBucket/TimeoutSeconds").asInt()).as("past the Express runner's five minutes")
                .isGreaterThan(300);
    }

    @Test
    void bucketTemplates_placeholders_areExactlyTheKnownSubstitutions() {
        assertThat(StateMachineDefinitions.placeholders(StateMachineDefinitions.expireBucketTemplate()))
                .isEqualTo(BucketWorkflow.substitutions("aws", RUNNER).keySet());
        assertThat(StateMachineDefinitions.placeholders(StateMachineDefinitions.runBucketTemplate()))
                .isEqualTo(BucketWorkflow.runnerSubstitutions("aws", FUNCTION).keySet());
    }

    @Test
    void expireBucket_runsTheRunnerAgainOnAnyError_becauseEveryStepIsIdempotent() throws Exception {
        JsonNode retry = JSON.readTree(StateMachineDefinitions.expireBucket("aws", RUNNER)).at("/States/RunBucket/Retry/0");

        assertThat(retry.path("ErrorEquals").get(0).asText()).isEqualTo("States.ALL");
        assertThat(retry.path("MaxAttempts").asInt() + 1).isEqualTo(BucketWorkflow.BUCKET_RUN_ATTEMPTS);
        assertThat(JSON.readTree(StateMachineDefinitions.runBucket("aws", FUNCTION)).at("/States/Step/Retry/0/MaxAttempts").asInt() + 1)
                .isEqualTo(BucketWorkflow.RUNNER_STEP_ATTEMPTS);
    }

    @Test
    void runBucket_stepsWithTheBucketFunction_waitingUntilTheStatesInstant_untilAStepAnswersNoRunnerState() throws Exception {
        JsonNode definition = JSON.readTree(StateMachineDefinitions.runBucket("aws", FUNCTION));

        assertThat(definition.path("StartAt").asText()).isEqualTo("Step");
        assertThat(definition.at("/States/Step/Resource").asText()).isEqualTo("arn:aws:states:::lambda:invoke");
        assertThat(definition.at("/States/Step/Parameters/FunctionName").asText()).isEqualTo(FUNCTION);
        assertThat(definition.at("/States/Step/Parameters/Payload.$").asText()).isEqualTo("$");
        assertThat(definition.at("/States/Step/OutputPath").asText()).isEqualTo("$.Payload");
        assertThat(definition.at("/States/MoreToDo/Choices/0/Variable").asText()).isEqualTo("$." + BucketWorkflow.RUNNER);
        assertThat(definition.at("/States/WaitForNextStep/TimestampPath").asText())
                .isEqualTo("$." + BucketWorkflow.RUNNER + "." + BucketWorkflow.RUNNER_AT);
        assertThat(definition.at("/States/Done/Type").asText()).isEqualTo("Succeed");
        assertThat(definition.toString()).as("an Express workflow may not wait for a job or a callback")
                .doesNotContain(".sync").doesNotContain(".waitForTaskToken");
        assertThat(definition.at("/States/Step/TimeoutSeconds").asInt()).as("a step times out within Express's five minutes")
                .isLessThan(300);
        assertThat(JSON.readTree(StateMachineDefinitions.expireBucket("aws", RUNNER)).at("/States/RunBucket/TimeoutSeconds").asInt())
                .as("the runner's own limit ends it before the bucket's Task gives up on it").isGreaterThan(300);
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
