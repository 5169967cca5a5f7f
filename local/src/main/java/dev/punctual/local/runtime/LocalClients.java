package dev.punctual.local.runtime;

import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import java.net.URI;
import software.amazon.awssdk.core.client.config.SdkAdvancedClientOption;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/** SDK clients for the local endpoints: explicit HTTP client, the {@link LocalAccount}'s Region and credentials. */
public final class LocalClients {

    private LocalClients() {
    }

    /** A Step Functions client for a local endpoint. */
    public static SfnClient stepFunctions(URI endpoint) {
        return SfnClient.builder()
                .endpointOverride(endpoint)
                .region(LocalAccount.region())
                .credentialsProvider(LocalAccount.CREDENTIALS)
                .httpClientBuilder(Apache5HttpClient.builder().maxConnections(64))
                // The SDK sends StartSyncExecution to sync-<host>, which a local address does not have.
                .overrideConfiguration(c -> c.putAdvancedOption(
                        SdkAdvancedClientOption.DISABLE_HOST_PREFIX_INJECTION, true))
                .build();
    }

    /** A DynamoDB client for a local endpoint (the same client the runtime itself uses). */
    public static DynamoDbClient dynamoDb(URI endpoint) {
        return LocalDynamoDbClients.dynamoDb(endpoint);
    }
}
