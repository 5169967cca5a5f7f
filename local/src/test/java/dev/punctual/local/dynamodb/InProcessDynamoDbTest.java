package dev.punctual.local.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/** The in-process clients and the HTTP endpoint see one database, with DynamoDB Local's own semantics. */
class InProcessDynamoDbTest {

    @TempDir
    Path temp;

    @Test
    void tablesAndItems_areSharedWithTheHttpEndpoint_bothWays() {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             DynamoDbClient http = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
            DynamoDbClient inProcess = server.inProcess().dynamoDb();
            createStreamTable(http, "shared");

            inProcess.putItem(b -> b.tableName("shared").item(item("written-in-process", "100")));
            http.putItem(b -> b.tableName("shared").item(item("written-over-http", "200")));

            assertThat(http.getItem(b -> b.tableName("shared").key(key("written-in-process"))).item()).containsKey("ttl");
            assertThat(inProcess.getItem(b -> b.tableName("shared").key(key("written-over-http"))).item()).containsKey("ttl");
            assertThat(inProcess.listTables().tableNames()).containsExactly("shared");
        }
    }

    @Test
    void aFailedCondition_isTheSdksConditionalCheckFailedException_andDeletesNothing() {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             DynamoDbClient http = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
            DynamoDbClient inProcess = server.inProcess().dynamoDb();
            createStreamTable(http, "guarded");
            http.putItem(b -> b.tableName("guarded").item(item("a", "100")));

            assertThatThrownBy(() -> inProcess.deleteItem(b -> b.tableName("guarded").key(key("a"))
                    .conditionExpression("#ttl = :ttl").expressionAttributeNames(Map.of("#ttl", "ttl"))
                    .expressionAttributeValues(Map.of(":ttl", AttributeValue.fromN("99")))))
                    .isInstanceOf(ConditionalCheckFailedException.class);

            assertThat(http.getItem(b -> b.tableName("guarded").key(key("a"))).hasItem()).isTrue();
        }
    }

    @Test
    void streamRecords_ofHttpWritesAndInProcessDeletes_readInOrderInProcess() {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             DynamoDbClient http = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
            DynamoDbStreamsClient streams = server.inProcess().streams();
            String streamArn = createStreamTable(http, "streamed");
            Instant before = Instant.now();
            http.putItem(b -> b.tableName("streamed").item(item("a", "100")));
            server.inProcess().dynamoDb().deleteItem(b -> b.tableName("streamed").key(key("a")));

            String shard = streams.describeStream(b -> b.streamArn(streamArn)).streamDescription().shards().get(0).shardId();
            String iterator = streams.getShardIterator(b -> b.streamArn(streamArn).shardId(shard)
                    .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();

            List<Record> records = streams.getRecords(b -> b.shardIterator(iterator)).records();

            assertThat(records).extracting(Record::eventName).containsExactly(OperationType.INSERT, OperationType.REMOVE);
            // DynamoDB Local's in-process client reads stored milliseconds as seconds; the wrapper corrects it.
            assertThat(records).allSatisfy(r -> assertThat(r.dynamodb().approximateCreationDateTime())
                    .isBetween(before.truncatedTo(ChronoUnit.MINUTES), Instant.now()));
        }
    }

    @Test
    void theStreamRecordIndexes_replaceTheSupersededOne_andSurviveARestartOnDisk() {
        Path data = temp.resolve("data");
        Path database = data.resolve("shared-local-instance.db");
        for (int run = 0; run < 2; run++) {
            try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, data));
                 DynamoDbClient http = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
                if (run == 0) {
                    createStreamTable(http, "kept");
                }
                http.putItem(b -> b.tableName("kept").item(item("item-" + System.nanoTime(), "1")));
            }
            if (run == 0) {
                // The index an earlier version added, as a database written by it would still have.
                StreamIndexProbe.exec(database,
                        "CREATE INDEX \"us*punctual-stream-sequence\" ON us (StreamID, SequenceNumber)");
            }
        }
        assertThat(StreamIndexProbe.indexNames(database))
                .containsExactlyInAnyOrder("us*punctual-stream", "us*punctual-shard");
    }

    @Test
    void getRecords_seeksToTheIteratorsPosition_andTheFirstSequenceNumberIsOneIndexLookup() {
        Path data = temp.resolve("data");
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, data))) {
            assertThat(server.inProcess()).isNotNull();
        }
        Path database = data.resolve("shared-local-instance.db");

        // Without "rowid>?" SQLite reads the shard from its first record on every call (180 ms per
        // call 150,000 records in); with it, from the iterator's position.
        assertThat(StreamIndexProbe.plan(database, StreamIndexProbe.GET_RECORDS))
                .singleElement().asString().contains("rowid>?").containsAnyOf("us*punctual-shard", "us*punctual-stream");
        assertThat(StreamIndexProbe.plan(database, StreamIndexProbe.FIRST_SEQUENCE_NUMBER))
                .singleElement().asString().contains("COVERING INDEX us*punctual-stream (StreamID=?)");
    }

    /**
     * DynamoDB Local's TTL job never runs: not on a new database, and not on a restart with a data directory
     * whose table has TTL on and expired items, where its scheduler's first pass used to start a job that
     * paged through the table deleting them before the runtime could cancel anything.
     */
    @Test
    void theNativeTtlJob_neverRuns_evenOnARestartWithExpiredItemsInATtlTable() {
        Path data = temp.resolve("ttl-restart");
        long expired = Instant.now().minus(1, ChronoUnit.MINUTES).getEpochSecond();
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, data))) {
            DynamoDbClient dynamoDb = server.inProcess().dynamoDb();
            createStreamTable(dynamoDb, "ttl-orders");
            dynamoDb.updateTimeToLive(r -> r.tableName("ttl-orders").timeToLiveSpecification(t -> t.enabled(true).attributeName("ttl")));
            for (int i = 0; i < 100; i++) {
                String id = "o-" + i;
                dynamoDb.putItem(r -> r.tableName("ttl-orders").item(item(id, Long.toString(expired))));
            }
            assertThat(ttlJobRuns()).as("a TTL job running on a new database").isFalse();
        }
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, data))) {
            assertThat(server.inProcess().dynamoDb().scan(r -> r.tableName("ttl-orders").consistentRead(true)).count())
                    .as("expired items left for Punctual").isEqualTo(100);
            assertThat(ttlJobRuns()).as("a TTL job running after a restart").isFalse();
        }
    }

    /** Whether a thread runs DynamoDB Local's TTL scheduler or a table's TTL deletion job. */
    private static boolean ttlJobRuns() {
        return Thread.getAllStackTraces().values().stream().flatMap(java.util.Arrays::stream)
                .map(StackTraceElement::getClassName)
                .anyMatch(type -> type.startsWith("com.amazonaws.services.dynamodbv2.local.shared.jobs.TimeToLiveDeletionJob"));
    }

    private static String createStreamTable(DynamoDbClient dynamoDb, String name) {
        return dynamoDb.createTable(b -> b.tableName(name)
                .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                .attributeDefinitions(AttributeDefinition.builder().attributeName("id")
                        .attributeType(ScalarAttributeType.S).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)))
                .tableDescription().latestStreamArn();
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("id", AttributeValue.fromS(id));
    }

    private static Map<String, AttributeValue> item(String id, String ttl) {
        return Map.of("id", AttributeValue.fromS(id), "ttl", AttributeValue.fromN(ttl));
    }
}
