package dev.punctual.local.modes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.functions.ExpirySettings;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StreamWiring;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bucket function's environment on the local runtime, against what the construct sets in Lambda. */
class WindowedLocalTest {

    private static final String STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:punctual-expire-bucket";

    /** A context answering only what the environment reads; anything else asked of it fails the test. */
    private static LocalMode.Context context(int bucketDeleteConcurrency) {
        return (LocalMode.Context) Proxy.newProxyInstance(LocalMode.Context.class.getClassLoader(),
                new Class<?>[] {LocalMode.Context.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "bucketDeleteConcurrency" -> bucketDeleteConcurrency;
                    case "stepFunctionsEndpoint" -> URI.create("http://127.0.0.1:8083");
                    case "dynamoDbEndpoint" -> URI.create("http://127.0.0.1:8000");
                    default -> throw new AssertionError("the environment should not need " + method.getName());
                });
    }

    @Test
    void bucketFunctionEnvironment_carriesTheRuntimesBucketDeleteConcurrency_asTheFunctionReadsIt() {
        Map<String, String> environment = WindowedLocal.bucketFunctionEnvironment(context(3), STATE_MACHINE_ARN);

        assertThat(environment).containsEntry(StreamWiring.ENV_MAX_CONCURRENCY, "3")
                .containsEntry(StreamWiring.ENV_STATE_MACHINE_ARN, STATE_MACHINE_ARN)
                .containsEntry(StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME);
        assertThat(ExpirySettings.forBucketFunction(environment).maxConcurrency()).isEqualTo(3);
    }

    @Test
    void bucketFunctionEnvironment_atTheDefault_deletesAsManyAtOnceAsTheDeployedFunction() {
        Map<String, String> environment = WindowedLocal.bucketFunctionEnvironment(
                context(StreamWiring.DEFAULT_BUCKET_CONCURRENCY), STATE_MACHINE_ARN);

        assertThat(ExpirySettings.forBucketFunction(environment).maxConcurrency())
                .isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY).isEqualTo(64);
    }
}
