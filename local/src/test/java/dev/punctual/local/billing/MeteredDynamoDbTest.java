package dev.punctual.local.billing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** What the metered client asks DynamoDB Local for, and what it counts, on a real in-process DynamoDB Local. */
class MeteredDynamoDbTest {

    @Test
    void itemDelete_asksForNoConsumedCapacity_countsOneWriteUnit_andTellsTheLedger() {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort())) {
            Recording recording = new Recording(server.inProcess().dynamoDb());
            CostMeter meter = new CostMeter();
            DeletionLedger ledger = new DeletionLedger();
            ledger.track("orders");
            MeteredDynamoDb metered = new MeteredDynamoDb(recording, meter, ledger, table -> !table.equals("index"),
                    Clock.systemUTC());
            for (String table : List.of("orders", "index")) {
                createTable(server.inProcess().dynamoDb(), table);
                server.inProcess().dynamoDb().putItem(b -> b.tableName(table).item(Map.of("id", AttributeValue.fromS("a"),
                        "expiresAt", AttributeValue.fromN("100"))));
                metered.deleteItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("a")))
                        .conditionExpression("#ttl = :ttl").expressionAttributeNames(Map.of("#ttl", "expiresAt"))
                        .expressionAttributeValues(Map.of(":ttl", AttributeValue.fromN("100"))));
            }

            assertThat(recording.deletes).extracting(DeleteItemRequest::returnConsumedCapacity)
                    .as("the item's delete asks for nothing; Punctual's own table's delete asks for its units")
                    .containsExactly(null, software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL);
            CostMeter.Snapshot counted = meter.snapshot(new CostMeter.EngineCounts(0, 0, 0, 0, 0, 0));
            assertThat(counted.itemDeleteWriteUnits()).isEqualTo(1.0);
            assertThat(counted.writeUnits()).as("Punctual's own delete, as DynamoDB Local reported it").isEqualTo(1.0);
            assertThat(ledger.deletedAt("orders", Map.of("id", AttributeValue.fromS("a")))).isPresent();
        }
    }

    @Test
    void readsThatFindNothing_areCountedAtDynamoDbsMinimum_oneUnitConsistent_halfEventually() {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort())) {
            CostMeter meter = new CostMeter();
            MeteredDynamoDb metered = new MeteredDynamoDb(server.inProcess().dynamoDb(), meter, new DeletionLedger(),
                    table -> false, Clock.systemUTC());
            createTable(server.inProcess().dynamoDb(), "index");

            metered.query(b -> b.tableName("index").consistentRead(true).keyConditionExpression("id = :id")
                    .expressionAttributeValues(Map.of(":id", AttributeValue.fromS("none"))));
            metered.getItem(b -> b.tableName("index").consistentRead(true).key(Map.of("id", AttributeValue.fromS("none"))));
            metered.getItem(b -> b.tableName("index").key(Map.of("id", AttributeValue.fromS("none"))));

            assertThat(meter.snapshot(new CostMeter.EngineCounts(0, 0, 0, 0, 0, 0)).readUnits()).isEqualTo(1 + 1 + 0.5);
        }
    }

    private static void createTable(DynamoDbClient dynamoDb, String table) {
        dynamoDb.createTable(b -> b.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                .attributeDefinitions(AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.S).build()));
    }

    /** Passes deletes on to DynamoDB Local and keeps each request as sent. */
    private static final class Recording implements DynamoDbClient {
        private final DynamoDbClient delegate;
        final List<DeleteItemRequest> deletes = new CopyOnWriteArrayList<>();

        Recording(DynamoDbClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public DeleteItemResponse deleteItem(DeleteItemRequest request) {
            deletes.add(request);
            return delegate.deleteItem(request);
        }

        @Override
        public String serviceName() {
            return delegate.serviceName();
        }

        @Override
        public void close() {
        }
    }
}
