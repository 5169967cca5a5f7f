package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.statemachine.StreamWiring;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AwsClientsTest {

    private static ExpirySettings bucketFunction(String maxConcurrency) {
        return ExpirySettings.forBucketFunction(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, "arn:aws:states:us-east-1:123456789012:stateMachine:expire-bucket",
                StreamWiring.ENV_SCHEDULE_TABLE, "index",
                StreamWiring.ENV_MAX_CONCURRENCY, maxConcurrency));
    }

    @Test
    void dynamoDbConnections_whenTheBucketDeletesMoreAtOnceThanTheDefault_keepOnePerDeleteInFlight() {
        assertThat(AwsClients.dynamoDbConnections(bucketFunction(Integer.toString(StreamWiring.MAX_MAX_CONCURRENCY))))
                .isEqualTo(StreamWiring.MAX_MAX_CONCURRENCY);
    }

    @Test
    void dynamoDbConnections_whenFewerCallsAreInFlight_neverDropBelowTheDefaultBucketConcurrency() {
        assertThat(AwsClients.dynamoDbConnections(bucketFunction("4"))).isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY);
        assertThat(AwsClients.dynamoDbConnections(ExpirySettings.fromEnvironment(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, "arn:aws:states:us-east-1:123456789012:stateMachine:expire-item",
                StreamWiring.ENV_TTL_ATTRIBUTE, "expiresAt"))))
                .as("the stream handler's, at its default of 16 calls in flight")
                .isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY);
    }
}
