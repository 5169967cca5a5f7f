package dev.punctual.functions;

import dev.punctual.statemachine.StreamWiring;
import java.time.Duration;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClientBuilder;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.SfnClientBuilder;

/**
 * How the functions build their SDK clients: once per container, with the standard retry mode and
 * bounded call times. Pointed at an endpoint override with no {@code AWS_ACCESS_KEY_ID} in the
 * environment, a client signs with the dummy credentials {@code local}/{@code local} in us-east-1,
 * which is what the local runtime accepts; otherwise it uses the default credential chain.
 */
final class AwsClients {

    /** Longest a single call may take, retries included; well inside a Lambda timeout. */
    static final Duration API_CALL_TIMEOUT = Duration.ofSeconds(20);
    /** Longest one attempt may take. */
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Connections a DynamoDB client keeps at least: a one-second bucket deletes its items concurrently,
     * and each delete in flight holds one.
     */
    static final int MIN_DYNAMODB_CONNECTIONS = StreamWiring.DEFAULT_BUCKET_CONCURRENCY;

    private AwsClients() {
    }

    /** Whether a client for {@code endpointSet} should sign with the local runtime's credentials. */
    static boolean local(boolean endpointSet, ExpirySettings settings) {
        return endpointSet && !settings.accessKeyInEnvironment();
    }

    static AwsCredentialsProvider credentials(boolean local) {
        return local ? StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))
                : DefaultCredentialsProvider.builder().build();
    }

    static Region region(boolean local, ExpirySettings settings) {
        return local ? Region.US_EAST_1 : Region.of(settings.region());
    }

    /** An EventBridge client for expiry events, configured from {@code settings}. */
    static EventBridgeClient eventBridge(ExpirySettings settings) {
        EventBridgeClientBuilder builder = EventBridgeClient.builder()
                .httpClientBuilder(Apache5HttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(2))
                        .socketTimeout(ATTEMPT_TIMEOUT))
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD)
                        .apiCallTimeout(API_CALL_TIMEOUT)
                        .apiCallAttemptTimeout(ATTEMPT_TIMEOUT));
        boolean local = local(settings.eventsEndpoint().isPresent(), settings);
        settings.eventsEndpoint().ifPresent(builder::endpointOverride);
        return builder.credentialsProvider(credentials(local)).region(region(local, settings)).build();
    }

    /** A DynamoDB client for the table and the schedule index, configured from {@code settings}. */
    static DynamoDbClient dynamoDb(ExpirySettings settings) {
        DynamoDbClientBuilder builder = DynamoDbClient.builder()
                .httpClientBuilder(Apache5HttpClient.builder()
                        .maxConnections(dynamoDbConnections(settings))
                        .connectionTimeout(Duration.ofSeconds(2))
                        .socketTimeout(ATTEMPT_TIMEOUT))
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD)
                        .apiCallTimeout(API_CALL_TIMEOUT)
                        .apiCallAttemptTimeout(ATTEMPT_TIMEOUT));
        boolean local = local(settings.dynamoDbEndpoint().isPresent(), settings);
        settings.dynamoDbEndpoint().ifPresent(builder::endpointOverride);
        return builder.credentialsProvider(credentials(local)).region(region(local, settings)).build();
    }

    /**
     * Connections for a DynamoDB client: one per call in flight at once ({@code settings.maxConcurrency()},
     * the bucket function's deletes), and never fewer than {@link #MIN_DYNAMODB_CONNECTIONS}, so a bucket
     * delete concurrency above the default is not capped by the pool.
     */
    static int dynamoDbConnections(ExpirySettings settings) {
        return Math.max(MIN_DYNAMODB_CONNECTIONS, settings.maxConcurrency());
    }

    /**
     * A Step Functions client configured from {@code settings}, its requests carried by {@code transport}
     * (the local runtime's in-process route to its engine) when given, else by its own HTTP client.
     */
    static SfnClient stepFunctions(ExpirySettings settings, SdkHttpClient transport) {
        return stepFunctions(settings, transport, override -> { });
    }

    /**
     * As {@link #stepFunctions(ExpirySettings, SdkHttpClient)}, with {@code adjust} applied to the override
     * configuration last: for a test that keeps everything but the SDK's backoff sleeps.
     */
    static SfnClient stepFunctions(ExpirySettings settings, SdkHttpClient transport,
            Consumer<ClientOverrideConfiguration.Builder> adjust) {
        SfnClientBuilder builder = SfnClient.builder();
        if (transport == null) {
            builder.httpClientBuilder(Apache5HttpClient.builder()
                    .maxConnections(settings.maxConcurrency())
                    .connectionTimeout(Duration.ofSeconds(2))
                    .socketTimeout(ATTEMPT_TIMEOUT));
        } else {
            builder.httpClient(transport);
        }
        builder.overrideConfiguration(o -> adjust.accept(o.retryStrategy(RetryMode.STANDARD)
                .apiCallTimeout(API_CALL_TIMEOUT)
                .apiCallAttemptTimeout(ATTEMPT_TIMEOUT)));
        boolean local = local(settings.stepFunctionsEndpoint().isPresent(), settings);
        settings.stepFunctionsEndpoint().ifPresent(builder::endpointOverride);
        return builder.credentialsProvider(credentials(local)).region(region(local, settings)).build();
    }
}
