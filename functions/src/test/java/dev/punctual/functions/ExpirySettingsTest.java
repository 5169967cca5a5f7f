package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.FakeExecutions;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpirySettingsTest {

    private static Map<String, String> environment(String... overrides) {
        Map<String, String> environment = new HashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, "arn:aws-cn:states:cn-north-1:123456789012:stateMachine:expire-item");
        environment.put(StreamWiring.ENV_TTL_ATTRIBUTE, "expiresAt");
        for (int i = 0; i < overrides.length; i += 2) {
            if (overrides[i + 1] == null) {
                environment.remove(overrides[i]);
            } else {
                environment.put(overrides[i], overrides[i + 1]);
            }
        }
        return environment;
    }

    @Test
    void fromEnvironment_appliesTheDefaults() {
        ExpirySettings settings = ExpirySettings.fromEnvironment(environment());

        assertThat(settings.region()).isEqualTo("cn-north-1");
        assertThat(settings.ttlAttribute()).isEqualTo("expiresAt");
        assertThat(settings.maxConcurrency()).isEqualTo(StreamWiring.DEFAULT_MAX_CONCURRENCY);
        assertThat(settings.cancelStale()).isTrue();
        assertThat(settings.stepFunctionsEndpoint()).isEmpty();
        assertThat(settings.executionArn("n")).isEqualTo("arn:aws-cn:states:cn-north-1:123456789012:execution:expire-item:n");
    }

    @Test
    void fromEnvironment_readsTheOptionalSettings() {
        ExpirySettings settings = ExpirySettings.fromEnvironment(environment(
                StreamWiring.ENV_MAX_CONCURRENCY, "256", StreamWiring.ENV_CANCEL_STALE, "FALSE",
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, "http://127.0.0.1:8083"));

        assertThat(settings.maxConcurrency()).isEqualTo(256);
        assertThat(settings.cancelStale()).isFalse();
        assertThat(settings.stepFunctionsEndpoint()).contains(URI.create("http://127.0.0.1:8083"));
    }

    @Test
    void fromEnvironment_whenAnythingIsMissingOrMalformed_namesTheVariable() {
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_STATE_MACHINE_ARN, null)))
                .hasMessageContaining(StreamWiring.ENV_STATE_MACHINE_ARN).hasMessageContaining("required");
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_STATE_MACHINE_ARN, "expire-item")))
                .hasMessageContaining(StreamWiring.ENV_STATE_MACHINE_ARN).hasMessageContaining("stateMachine");
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_TTL_ATTRIBUTE, null)))
                .hasMessageContaining(StreamWiring.ENV_TTL_ATTRIBUTE);
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_TTL_ATTRIBUTE, "a\"b")))
                .hasMessageContaining(StreamWiring.ENV_TTL_ATTRIBUTE).hasMessageContaining("quotes");
        for (String bad : new String[] {"0", "257", "many"}) {
            assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_MAX_CONCURRENCY, bad)))
                    .hasMessageContaining(StreamWiring.ENV_MAX_CONCURRENCY).hasMessageContaining("1 to 256");
        }
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_CANCEL_STALE, "yes")))
                .hasMessageContaining(StreamWiring.ENV_CANCEL_STALE).hasMessageContaining("true or false");
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, "127.0.0.1:8083")))
                .hasMessageContaining(StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT);
        assertThatThrownBy(() -> FunctionParts.builder(Map.of()))
                .hasMessageContaining(StreamWiring.ENV_STATE_MACHINE_ARN);
    }

    @Test
    void fromEnvironment_windowed_needsTheScheduleTable_andNamesTheVariableWhenMissing() {
        assertThat(ExpirySettings.fromEnvironment(environment()).mode()).isEqualTo(ExpiryMode.PER_ITEM);
        // The windowed handler asks for its index table while it is built: start-up fails, naming the variable.
        assertThatThrownBy(() -> new ExpiryStreamHandler(FunctionParts.builder(
                        environment(StreamWiring.ENV_MODE, "windowed")).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(StreamWiring.ENV_SCHEDULE_TABLE);

        ExpirySettings windowed = ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_MODE, "windowed",
                StreamWiring.ENV_SCHEDULE_TABLE, "index", StreamWiring.ENV_DYNAMODB_ENDPOINT, "http://127.0.0.1:8000"));
        assertThat(windowed.mode()).isEqualTo(ExpiryMode.WINDOWED);
        assertThat(windowed.scheduleTable()).isEqualTo("index");
        assertThat(windowed.dynamoDbEndpoint()).contains(URI.create("http://127.0.0.1:8000"));
    }

    @Test
    void fromEnvironment_unknownMode_isRefusedNamingTheChoices() {
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(StreamWiring.ENV_MODE, "bucketed")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(StreamWiring.ENV_MODE).hasMessageContaining("per-item or windowed");
    }

    @Test
    void forBucketFunction_needsNoTtlAttribute_andDeletesSixtyFourAtOnceByDefault() {
        ExpirySettings settings = ExpirySettings.forBucketFunction(environment(StreamWiring.ENV_TTL_ATTRIBUTE, null,
                StreamWiring.ENV_SCHEDULE_TABLE, "index"));

        assertThat(settings.scheduleTable()).isEqualTo("index");
        assertThat(settings.maxConcurrency()).isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY);
        assertThatThrownBy(() -> new BucketFunction(FunctionParts.builder(ExpirySettings.forBucketFunction(environment())).build()))
                .hasMessageContaining(StreamWiring.ENV_SCHEDULE_TABLE);
    }

    @Test
    void forBackfillFunction_takesTheTtlAttributeAsADefault_andNeedsItsProgressTable_andWindowedItsIndex() {
        ExpirySettings settings = ExpirySettings.forBackfillFunction(environment(StreamWiring.ENV_TTL_ATTRIBUTE, null,
                BackfillWorkflow.ENV_PROGRESS_TABLE, " progress ", BackfillWorkflow.ENV_TABLE, "orders"));

        assertThat(settings.ttlAttribute()).isNull();
        assertThat(settings.backfillProgressTable()).isEqualTo("progress");
        assertThat(settings.backfillTable()).contains("orders");
        assertThat(settings.maxConcurrency()).as("the stream handler's").isEqualTo(StreamWiring.DEFAULT_MAX_CONCURRENCY);
        assertThat(ExpirySettings.forBackfillFunction(environment(BackfillWorkflow.ENV_TABLE, " ")).backfillTable()).isEmpty();
        assertThatThrownBy(() -> new BackfillFunction(FunctionParts.builder(ExpirySettings.forBackfillFunction(environment()))
                .executions(new FakeExecutions()).build()))
                .hasMessageContaining(BackfillWorkflow.ENV_PROGRESS_TABLE + " is required but not set");
        assertThatThrownBy(() -> new BackfillFunction(FunctionParts.builder(ExpirySettings.forBackfillFunction(environment(
                        StreamWiring.ENV_MODE, "windowed", BackfillWorkflow.ENV_PROGRESS_TABLE, "progress")))
                .executions(new FakeExecutions()).build()))
                .as("windowed, at start-up rather than on the first page").hasMessageContaining(StreamWiring.ENV_SCHEDULE_TABLE);
    }
}
