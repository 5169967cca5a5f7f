package dev.punctual.local.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The delete benchmarks' burst: a table with a stream, as a watched table has, items carrying one TTL,
 * and every one of them deleted at once with the expiry's condition {@code #ttl = :ttl}.
 */
final class DeleteBurst {

    /** The TTL attribute of the benchmarks' tables. */
    static final String TTL_ATTRIBUTE = "expiresAt";
    /** The TTL every item of a burst holds, and its delete compares. */
    static final String TTL = "1767225600";

    private DeleteBurst() {
    }

    /** A table keyed by {@code id} with a stream of new and old images, as the trials' tables are. */
    static void createTable(DynamoDbClient dynamoDb, String table) {
        dynamoDb.createTable(b -> b.tableName(table)
                .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                .attributeDefinitions(AttributeDefinition.builder().attributeName("id")
                        .attributeType(ScalarAttributeType.S).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
    }

    /** Writes items {@code prefix0} to {@code prefix(count - 1)}, each with {@link #TTL}. */
    static void fill(DynamoDbClient dynamoDb, String table, String prefix, int count, String note) {
        List<WriteRequest> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                    "id", AttributeValue.fromS(prefix + i),
                    TTL_ATTRIBUTE, AttributeValue.fromN(TTL),
                    "note", AttributeValue.fromS(note))).build()).build());
            if (batch.size() == 25 || i == count - 1) {
                Map<String, List<WriteRequest>> pending = Map.of(table, batch);
                while (!pending.isEmpty()) {
                    Map<String, List<WriteRequest>> request = pending;
                    pending = dynamoDb.batchWriteItem(b -> b.requestItems(request)).unprocessedItems();
                }
                batch = new ArrayList<>();
            }
        }
    }

    /**
     * Deletes items {@code prefix0} to {@code prefix(burst - 1)} at once on {@code pool}, each only if it
     * still holds {@link #TTL}, asking for the consumed capacity if {@code consumedCapacity}.
     *
     * @return when each delete returned, in milliseconds after the burst began, by item
     */
    static long[] deleteAll(DynamoDbClient dynamoDb, String table, String prefix, int burst, ExecutorService pool,
            boolean consumedCapacity) throws Exception {
        long[] completed = new long[burst];
        long start = System.nanoTime();
        List<Future<?>> deletes = new ArrayList<>(burst);
        for (int i = 0; i < burst; i++) {
            int index = i;
            deletes.add(pool.submit(() -> {
                dynamoDb.deleteItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS(prefix + index)))
                        .conditionExpression("#ttl = :ttl").expressionAttributeNames(Map.of("#ttl", TTL_ATTRIBUTE))
                        .expressionAttributeValues(Map.of(":ttl", AttributeValue.fromN(TTL)))
                        .returnConsumedCapacity(consumedCapacity ? ReturnConsumedCapacity.TOTAL : null));
                completed[index] = (System.nanoTime() - start) / 1_000_000;
            }));
        }
        for (Future<?> delete : deletes) {
            delete.get();
        }
        return completed;
    }
}
