package dev.punctual.local.dynamodb;

import dev.punctual.local.account.LocalAccount;
import java.net.URI;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * SDK clients for a local DynamoDB endpoint: the Apache 5 HTTP client set explicitly (several HTTP
 * clients may be on the classpath), and the {@link LocalAccount}'s Region and credentials. Build them
 * once and share.
 */
public final class LocalDynamoDbClients {

    private LocalDynamoDbClients() {
    }

    /** A DynamoDB client for {@code endpoint}. */
    public static DynamoDbClient dynamoDb(URI endpoint) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(LocalAccount.region())
                .credentialsProvider(LocalAccount.CREDENTIALS)
                .httpClientBuilder(Apache5HttpClient.builder())
                .build();
    }

    /** A DynamoDB Streams client for {@code endpoint}. */
    public static DynamoDbStreamsClient streams(URI endpoint) {
        return DynamoDbStreamsClient.builder()
                .endpointOverride(endpoint)
                .region(LocalAccount.region())
                .credentialsProvider(LocalAccount.CREDENTIALS)
                .httpClientBuilder(Apache5HttpClient.builder())
                .build();
    }
}
