package dev.punctual.local.dynamodb;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * SDK clients for a local DynamoDB endpoint: the Apache 5 HTTP client set explicitly (several HTTP
 * clients may be on the classpath), dummy static credentials and us-east-1. Build them once and share.
 */
public final class LocalDynamoDbClients {

    /** The region every local ARN and client uses. */
    public static final Region REGION = Region.US_EAST_1;

    private static final StaticCredentialsProvider CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));

    private LocalDynamoDbClients() {
    }

    /** A DynamoDB client for {@code endpoint}. */
    public static DynamoDbClient dynamoDb(URI endpoint) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(REGION)
                .credentialsProvider(CREDENTIALS)
                .httpClientBuilder(Apache5HttpClient.builder())
                .build();
    }

    /** A DynamoDB Streams client for {@code endpoint}. */
    public static DynamoDbStreamsClient streams(URI endpoint) {
        return DynamoDbStreamsClient.builder()
                .endpointOverride(endpoint)
                .region(REGION)
                .credentialsProvider(CREDENTIALS)
                .httpClientBuilder(Apache5HttpClient.builder())
                .build();
    }
}
