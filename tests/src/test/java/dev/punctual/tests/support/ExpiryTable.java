package dev.punctual.tests.support;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

/**
 * A fresh table on a running {@link LocalRuntime}, set up the way Punctual expects (string partition
 * key {@code id}, stream with {@code NEW_AND_OLD_IMAGES}, TTL enabled on {@code expiresAt}) and
 * already watched by the stream poller, with the item operations the tests need.
 */
public final class ExpiryTable {

    /** The partition key attribute. */
    public static final String KEY = "id";
    /** The TTL attribute. */
    public static final String TTL = "expiresAt";

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final Duration WATCH_TIMEOUT = Duration.ofSeconds(30);

    private final DynamoDbClient dynamoDb;
    private final String name;
    private final WatchedTable watched;

    private ExpiryTable(DynamoDbClient dynamoDb, String name, WatchedTable watched) {
        this.dynamoDb = dynamoDb;
        this.name = name;
        this.watched = watched;
    }

    /**
     * Creates a table named {@code prefix} plus a short unique suffix and waits until the poller
     * watches it, so an item written next is scheduled. Keep the prefix short: the name stays
     * readable in execution names (24 characters of it) and in {@code punctual pending} (20).
     */
    public static ExpiryTable create(LocalRuntime runtime, String prefix) {
        String name = prefix + "-" + Long.toString(System.currentTimeMillis() % 100_000, 36) + SEQUENCE.incrementAndGet();
        DynamoDbClient dynamoDb = runtime.dynamoDb();
        dynamoDb.createTable(r -> r.tableName(name)
                .keySchema(KeySchemaElement.builder().attributeName(KEY).keyType(KeyType.HASH).build())
                .attributeDefinitions(AttributeDefinition.builder().attributeName(KEY).attributeType(ScalarAttributeType.S).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
        dynamoDb.updateTimeToLive(r -> r.tableName(name).timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL)));
        return existing(runtime, name);
    }

    /**
     * The table {@code name}, already made the way Punctual expects, once the poller watches it: after a
     * restart of the runtime on the same data directory, say.
     */
    public static ExpiryTable existing(LocalRuntime runtime, String name) {
        WatchedTable watched = Await.value("the stream poller to watch " + name, WATCH_TIMEOUT, () -> {
            runtime.streamPoller().discoverTables();
            return runtime.streamPoller().watchedTables().stream().filter(t -> t.tableName().equals(name)).findFirst();
        });
        return new ExpiryTable(runtime.dynamoDb(), name, watched);
    }

    public String name() {
        return name;
    }

    /** The poller's view of the table (stream ARN, TTL attribute). */
    public WatchedTable watched() {
        return watched;
    }

    /** Puts item {@code id} with a Number TTL of {@code epochSeconds}. */
    public void putWithTtl(String id, long epochSeconds) {
        put(id, AttributeValue.fromN(Long.toString(epochSeconds)));
    }

    /** Puts item {@code id} with {@code ttl} as its TTL attribute, whatever its type. */
    public void put(String id, AttributeValue ttl) {
        dynamoDb.putItem(r -> r.tableName(name).item(Map.of(KEY, AttributeValue.fromS(id), TTL, ttl,
                "payload", AttributeValue.fromS("end-to-end test item"))));
    }

    /** Puts items {@code id -> ttl} with BatchWriteItem, 25 at a time; returns when all are stored. */
    public void putAll(Map<String, Long> ttls) {
        batchWrite(dynamoDb, name, ttls);
    }

    /** Writes items {@code id -> ttl} to {@code table} with BatchWriteItem, resending unprocessed ones. */
    public static void batchWrite(DynamoDbClient dynamoDb, String table, Map<String, Long> ttls) {
        List<WriteRequest> requests = new ArrayList<>();
        ttls.forEach((id, ttl) -> requests.add(WriteRequest.builder().putRequest(PutRequest.builder()
                .item(Map.of(KEY, AttributeValue.fromS(id), TTL, AttributeValue.fromN(Long.toString(ttl)))).build()).build()));
        for (int from = 0; from < requests.size(); from += 25) {
            Map<String, List<WriteRequest>> pending = Map.of(table, requests.subList(from, Math.min(requests.size(), from + 25)));
            while (!pending.isEmpty()) {
                Map<String, List<WriteRequest>> send = pending;
                BatchWriteItemResponse response = dynamoDb.batchWriteItem(r -> r.requestItems(send));
                pending = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
            }
        }
    }

    /** Sets the TTL of an existing item to {@code epochSeconds}. */
    public void updateTtl(String id, long epochSeconds) {
        dynamoDb.updateItem(r -> r.tableName(name).key(key(id)).updateExpression("SET #ttl = :ttl")
                .expressionAttributeNames(Map.of("#ttl", TTL))
                .expressionAttributeValues(Map.of(":ttl", AttributeValue.fromN(Long.toString(epochSeconds)))));
    }

    /** Removes the TTL attribute of an existing item. */
    public void removeTtl(String id) {
        dynamoDb.updateItem(r -> r.tableName(name).key(key(id)).updateExpression("REMOVE #ttl")
                .expressionAttributeNames(Map.of("#ttl", TTL)));
    }

    /** Deletes item {@code id}, as an application would. */
    public void delete(String id) {
        dynamoDb.deleteItem(r -> r.tableName(name).key(key(id)));
    }

    /** The item, read with ConsistentRead. */
    public Optional<Map<String, AttributeValue>> get(String id) {
        var response = dynamoDb.getItem(r -> r.tableName(name).key(key(id)).consistentRead(true));
        return response.hasItem() && !response.item().isEmpty() ? Optional.of(response.item()) : Optional.empty();
    }

    /** Whether item {@code id} is in the table (ConsistentRead). */
    public boolean contains(String id) {
        return get(id).isPresent();
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of(KEY, AttributeValue.fromS(id));
    }
}
