package dev.punctual.tests.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.Identity;
import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.testing.Await;
import dev.punctual.testing.TestLambdaContext;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.RuntimeProgress;
import dev.punctual.tests.support.TableStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The real handler, configured as the runtime configures it plus {@code includeOldImage}, handed real
 * stream records by the test: the same REMOVE batch twice (at-least-once delivery), one REMOVE
 * marked as DynamoDB's TTL service deleted it (a native-TTL fixture), and an item whose image is too
 * large for an event. Its events go through the SDK client to the runtime's EventBridge endpoint.
 */
class ExpiryEventsDeliveryTest {

    private static final String TABLE = "ev-delivery";

    @Test
    void duplicateDelivery_nativeTtl_andLargeImages_onTheRealHandler() throws Exception {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withTables(Set.of("not-this-one")));
             DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(runtime.endpoints().dynamoDb())) {
            DynamoDbClient dynamoDb = runtime.dynamoDb();
            createTable(dynamoDb);
            String streamArn = dynamoDb.describeTable(r -> r.tableName(TABLE)).table().latestStreamArn();
            long ttl = Instant.now().getEpochSecond() - 1;
            put(dynamoDb, "small", ttl, "a note");
            put(dynamoDb, "large", ttl, "x".repeat(300 * 1024));
            put(dynamoDb, "native", ttl, "a note");
            Map<String, String> environment = new HashMap<>(runtime.mode().handlerEnvironment(new WatchedTable(TABLE, streamArn, ExpiryTable.TTL)));
            environment.put(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, "true");

            try (ExpiryStreamHandler handler = new ExpiryStreamHandler(FunctionParts.builder(environment).build())) {
                List<DynamodbStreamRecord> inserts = TableStream.read(streams, streamArn, 3);
                // Punctual expires "small" and "large"; "native" stands for an item native TTL deleted first.
                assertThat(handler.handleRequest(TableStream.event(inserts.subList(0, 2)), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
                dynamoDb.deleteItem(r -> r.tableName(TABLE).key(Map.of(ExpiryTable.KEY, AttributeValue.fromS("native"))));
                Await.untilProgressing("small and large expired", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> dynamoDb.scan(r -> r.tableName(TABLE)).count() == 0);

                List<DynamodbStreamRecord> removes = TableStream.read(streams, streamArn, 6).subList(3, 6);
                for (DynamodbStreamRecord remove : removes) {
                    if ("native".equals(remove.getDynamodb().getKeys().get(ExpiryTable.KEY).getS())) {
                        remove.setUserIdentity(new Identity().withType("Service").withPrincipalId("dynamodb.amazonaws.com"));
                    }
                }
                assertThat(handler.handleRequest(TableStream.event(removes), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
                assertThat(handler.handleRequest(TableStream.event(removes), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
            }

            ReceivedEvents received = new ReceivedEvents(runtime, TABLE);
            assertThat(received.details()).hasSize(6);
            Map<String, List<JsonNode>> byItem = received.byItem();
            assertThat(byItem.keySet()).containsExactlyInAnyOrder("small", "large", "native");
            byItem.forEach((item, events) -> {
                assertThat(events).as("deliveries of %s", item).hasSize(2);
                assertThat(events.get(1).get(ExpiryEvents.ID)).as("id of %s", item).isEqualTo(events.get(0).get(ExpiryEvents.ID));
            });
            assertThat(received.ids()).hasSize(3);

            JsonNode small = byItem.get("small").get(0);
            assertThat(small.get(ExpiryEvents.EXPIRED_BY).asText()).isEqualTo("punctual");
            assertThat(small.get(ExpiryEvents.OLD_IMAGE).get("note").get("S").asText()).isEqualTo("a note");

            JsonNode large = byItem.get("large").get(0);
            assertThat(large.has(ExpiryEvents.OLD_IMAGE)).isFalse();
            assertThat(large.get(ExpiryEvents.OLD_IMAGE_OMITTED).asText()).isEqualTo("size");
            assertThat(large.get(ExpiryEvents.KEY).toString()).isEqualTo("{\"id\":{\"S\":\"large\"}}");

            JsonNode nativeTtl = byItem.get("native").get(0);
            assertThat(nativeTtl.get(ExpiryEvents.EXPIRED_BY).asText()).isEqualTo("native-ttl");
            assertThat(nativeTtl.get(ExpiryEvents.TTL).asText()).isEqualTo(Long.toString(ttl));
            assertThat(nativeTtl.get(ExpiryEvents.LAG_MS).asLong()).isPositive();
        }
    }

    private static void createTable(DynamoDbClient dynamoDb) {
        dynamoDb.createTable(r -> r.tableName(TABLE)
                .keySchema(KeySchemaElement.builder().attributeName(ExpiryTable.KEY).keyType(KeyType.HASH).build())
                .attributeDefinitions(AttributeDefinition.builder().attributeName(ExpiryTable.KEY).attributeType(ScalarAttributeType.S).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
    }

    private static void put(DynamoDbClient dynamoDb, String id, long ttl, String note) {
        dynamoDb.putItem(r -> r.tableName(TABLE).item(Map.of(ExpiryTable.KEY, AttributeValue.fromS(id),
                ExpiryTable.TTL, AttributeValue.fromN(Long.toString(ttl)), "note", AttributeValue.fromS(note))));
    }
}
