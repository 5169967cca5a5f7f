package dev.punctual.local.stream;

import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/** DynamoDB Local on a free loopback port, with clients and table helpers for stream tests. */
final class LocalTables implements AutoCloseable {

    private static final AtomicInteger NEXT = new AtomicInteger();

    final DynamoDbLocalServer server;
    final DynamoDbClient dynamoDb;
    final DynamoDbStreamsClient streams;

    LocalTables() {
        server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
        dynamoDb = LocalDynamoDbClients.dynamoDb(server.endpoint());
        streams = LocalDynamoDbClients.streams(server.endpoint());
    }

    static String uniqueName(String prefix) {
        return prefix + "-" + NEXT.incrementAndGet();
    }

    /** A table keyed on {@code id} (S) with a NEW_AND_OLD_IMAGES stream and, if given, TTL on {@code ttlAttribute}. */
    String createTable(String name, boolean stream, String ttlAttribute) {
        dynamoDb.createTable(b -> {
            b.tableName(name)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.S).build())
                    .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build());
            if (stream) {
                b.streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES));
            }
        });
        if (ttlAttribute != null) {
            enableTtl(name, ttlAttribute);
        }
        return name;
    }

    void enableTtl(String name, String ttlAttribute) {
        dynamoDb.updateTimeToLive(b -> b.tableName(name).timeToLiveSpecification(t -> t.enabled(true).attributeName(ttlAttribute)));
    }

    String streamArn(String table) {
        return dynamoDb.describeTable(b -> b.tableName(table)).table().latestStreamArn();
    }

    void put(String table, String id, long ttl) {
        dynamoDb.putItem(b -> b.tableName(table).item(Map.of(
                "id", AttributeValue.fromS(id), "expiresAt", AttributeValue.fromN(Long.toString(ttl)))));
    }

    void putWithout(String table, String id) {
        dynamoDb.putItem(b -> b.tableName(table).item(Map.of("id", AttributeValue.fromS(id))));
    }

    void delete(String table, String id) {
        dynamoDb.deleteItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS(id))));
    }

    @Override
    public void close() {
        streams.close();
        dynamoDb.close();
        server.close();
    }
}
