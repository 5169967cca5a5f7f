package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.backfill.EmbeddedDynamoDb;
import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import dev.punctual.windowed.IndexChunk;
import dev.punctual.windowed.IndexEntry;
import dev.punctual.windowed.MinutePart;
import dev.punctual.windowed.RunnerMark;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/** The schedule index on DynamoDB Local: chunk writes, the minute runner's mark and the next due second. */
class DynamoDbScheduleIndexTest {

    private static final long MINUTE = 1_800_000_000L - 1_800_000_000L % 60;
    private static final Bucket BUCKET = new Bucket("orders", BucketLevel.MINUTE, MINUTE);

    private EmbeddedDynamoDb dynamoDb;
    private DynamoDbScheduleIndex index;

    @BeforeEach
    void createIndex() throws ReflectiveOperationException {
        dynamoDb = new EmbeddedDynamoDb();
        dynamoDb.client().createTable(r -> r.tableName("index").billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                        AttributeDefinition.builder().attributeName(ScheduleIndexTable.PARTITION_KEY).attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName(ScheduleIndexTable.SORT_KEY).attributeType(ScalarAttributeType.S).build())
                .keySchema(
                        KeySchemaElement.builder().attributeName(ScheduleIndexTable.PARTITION_KEY).keyType(KeyType.HASH).build(),
                        KeySchemaElement.builder().attributeName(ScheduleIndexTable.SORT_KEY).keyType(KeyType.RANGE).build()));
        index = new DynamoDbScheduleIndex(dynamoDb.client(), "index");
    }

    @AfterEach
    void close() {
        dynamoDb.close();
    }

    @Test
    void runnerMark_startsUnset_andOnlyEverRises_whoeverWritesIt() {
        assertThat(index.runnerMark(BUCKET)).isEqualTo(RunnerMark.NOT_STARTED);

        index.advanceThrough(BUCKET, MinutePart.MAIN, MINUTE - 1);
        assertThat(index.runnerMark(BUCKET)).as("begun, nothing sealed, no next yet")
                .isEqualTo(new RunnerMark(true, MINUTE - 1, Long.MIN_VALUE));
        index.recordNext(BUCKET, MinutePart.MAIN, MINUTE + 10);
        index.advanceThrough(BUCKET, MinutePart.MAIN, MINUTE + 10);
        index.recordNext(BUCKET, MinutePart.MAIN, MINUTE + 40);
        // A duplicate runner, behind: its writes leave both where they are.
        index.advanceThrough(BUCKET, MinutePart.MAIN, MINUTE + 10);
        index.recordNext(BUCKET, MinutePart.MAIN, MINUTE + 10);

        RunnerMark mark = index.runnerMark(BUCKET);
        assertThat(mark).isEqualTo(new RunnerMark(true, MINUTE + 10, MINUTE + 40));
        assertThat(mark.nextKnown()).isTrue();
        assertThat(index.isSealed(new Bucket("orders", BucketLevel.MINUTE, MINUTE + 60))).isFalse();
        var item = dynamoDb.client().getItem(r -> r.tableName("index").key(Map.of(
                ScheduleIndexTable.PARTITION_KEY, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("seal|orders|minute|" + MINUTE),
                ScheduleIndexTable.SORT_KEY, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(ScheduleIndexTable.SEAL_SORT_KEY)))).item();
        assertThat(item.get(ScheduleIndexTable.EXPIRES_AT).n()).as("the index's own TTL clears it a week after the minute")
                .isEqualTo(Long.toString(MINUTE + 60 + ScheduleIndexTable.RETENTION.toSeconds()));
    }

    @Test
    void begin_setsTheMarkToTheSecondBeforeTheMinuteOnlyIfNoRunnerBegan_andAnswersTheMarkAsItStands() {
        assertThat(index.begin(BUCKET, MinutePart.MAIN)).as("the first runner begins it")
                .isEqualTo(new RunnerMark(true, MINUTE - 1, Long.MIN_VALUE));
        index.recordNext(BUCKET, MinutePart.MAIN, MINUTE + 10);
        index.advanceThrough(BUCKET, MinutePart.MAIN, MINUTE + 10);
        index.recordNext(BUCKET, MinutePart.MAIN, MINUTE + 40);

        RunnerMark again = index.begin(BUCKET, MinutePart.MAIN);

        assertThat(again).as("a runner run again learns how far the part got, and lowers nothing")
                .isEqualTo(new RunnerMark(true, MINUTE + 10, MINUTE + 40));
        assertThat(index.runnerMark(BUCKET)).isEqualTo(again);
        assertThat(index.begin(BUCKET, MinutePart.EARLY)).as("the early part's mark is its own")
                .isEqualTo(new RunnerMark(true, MINUTE - 1, Long.MIN_VALUE));
        var item = dynamoDb.client().getItem(r -> r.tableName("index").key(Map.of(
                ScheduleIndexTable.PARTITION_KEY, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("seal|orders|minute|" + MINUTE),
                ScheduleIndexTable.SORT_KEY, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(ScheduleIndexTable.EARLY_MARK_SORT_KEY)))).item();
        assertThat(item.get(ScheduleIndexTable.EXPIRES_AT).n()).isEqualTo(Long.toString(MINUTE + 60 + ScheduleIndexTable.RETENTION.toSeconds()));
    }

    @Test
    void minutesEarlyPart_hasAMarkOfItsOwn_besideTheMainPartsSeal() {
        index.advanceThrough(BUCKET, MinutePart.MAIN, MINUTE + 30);
        index.recordNext(BUCKET, MinutePart.MAIN, MINUTE + 40);
        assertThat(index.runnerMark(BUCKET, MinutePart.EARLY)).as("the main part's progress says nothing of the early part")
                .isEqualTo(RunnerMark.NOT_STARTED);

        index.advanceThrough(BUCKET, MinutePart.EARLY, MINUTE + 3);
        index.recordNext(BUCKET, MinutePart.EARLY, MINUTE + 7);

        assertThat(index.runnerMark(BUCKET, MinutePart.EARLY)).isEqualTo(new RunnerMark(true, MINUTE + 3, MINUTE + 7));
        assertThat(index.runnerMark(BUCKET, MinutePart.MAIN)).isEqualTo(new RunnerMark(true, MINUTE + 30, MINUTE + 40));
        var item = dynamoDb.client().getItem(r -> r.tableName("index").key(Map.of(
                ScheduleIndexTable.PARTITION_KEY, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("seal|orders|minute|" + MINUTE),
                ScheduleIndexTable.SORT_KEY, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(ScheduleIndexTable.EARLY_MARK_SORT_KEY)))).item();
        assertThat(item.get(ScheduleIndexTable.THROUGH).n()).isEqualTo(Long.toString(MINUTE + 3));
        assertThat(item.get(ScheduleIndexTable.EXPIRES_AT).n()).isEqualTo(Long.toString(MINUTE + 60 + ScheduleIndexTable.RETENTION.toSeconds()));
    }

    @Test
    void nextDueSecond_isTheFirstSecondAfterTheGivenOne_withinThatMinuteAndTableOnly() {
        put("orders", MINUTE + 7);
        put("orders", MINUTE + 7);
        put("orders", MINUTE + 42);
        put("orders", MINUTE + 60);
        put("other", MINUTE + 20);

        assertThat(index.nextDueSecond("orders", MINUTE, MINUTE - 1)).isEqualTo(OptionalLong.of(MINUTE + 7));
        assertThat(index.nextDueSecond("orders", MINUTE, MINUTE + 6)).isEqualTo(OptionalLong.of(MINUTE + 7));
        assertThat(index.nextDueSecond("orders", MINUTE, MINUTE + 7)).isEqualTo(OptionalLong.of(MINUTE + 42));
        assertThat(index.nextDueSecond("orders", MINUTE, MINUTE + 42)).as("the next minute is another partition").isEmpty();
        assertThat(index.nextDueSecond("other", MINUTE, MINUTE - 1)).isEqualTo(OptionalLong.of(MINUTE + 20));
    }

    @Test
    void putChunks_writesEveryChunk_25ARequest() {
        List<BatchWriteItemRequest> requests = new ArrayList<>();
        DynamoDbScheduleIndex counted = new DynamoDbScheduleIndex(new ForwardingDynamoDb(dynamoDb.client()) {
            @Override
            public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
                requests.add(request);
                return super.batchWriteItem(request);
            }
        }, "index");

        counted.putChunks(chunks(30));

        assertThat(requests).extracting(r -> r.requestItems().get("index").size()).containsExactly(25, 5);
        for (int i = 0; i < 30; i++) {
            assertThat(index.entriesDue("orders", MINUTE + i)).as("second %d", i).singleElement()
                    .extracting(IndexEntry::ttl).isEqualTo(Long.toString(MINUTE + i));
        }
    }

    @Test
    void putChunks_whatDynamoDbLeavesUnprocessed_isWrittenOneByOne_beforeItReturns() {
        List<PutItemRequest> puts = new ArrayList<>();
        DynamoDbScheduleIndex throttled = new DynamoDbScheduleIndex(new ForwardingDynamoDb(dynamoDb.client()) {
            @Override
            public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
                // As DynamoDB does when it throttles part of a request: the first three written, the rest handed back.
                List<WriteRequest> writes = request.requestItems().get("index");
                super.batchWriteItem(request.toBuilder().requestItems(Map.of("index", writes.subList(0, 3))).build());
                return BatchWriteItemResponse.builder().unprocessedItems(Map.of("index", writes.subList(3, writes.size()))).build();
            }

            @Override
            public PutItemResponse putItem(PutItemRequest request) {
                puts.add(request);
                return super.putItem(request);
            }
        }, "index");

        throttled.putChunks(chunks(10));

        assertThat(puts).hasSize(7);
        for (int i = 0; i < 10; i++) {
            assertThat(index.entriesDue("orders", MINUTE + i)).as("second %d", i).hasSize(1);
        }
    }

    /** One chunk of one entry in each of the minute's first {@code n} seconds. */
    private static List<IndexChunk> chunks(int n) {
        List<IndexChunk> chunks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long second = MINUTE + i;
            chunks.add(new IndexChunk("orders", second, "d" + i,
                    List.of(new IndexEntry(ItemKey.of(Map.of("id", AttributeText.s("item-" + i))), Long.toString(second), second))));
        }
        return chunks;
    }

    /** A client that passes every call the index makes to another; a test overrides the call it watches. */
    private static class ForwardingDynamoDb implements DynamoDbClient {
        private final DynamoDbClient delegate;

        ForwardingDynamoDb(DynamoDbClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
            return delegate.batchWriteItem(request);
        }

        @Override
        public PutItemResponse putItem(PutItemRequest request) {
            return delegate.putItem(request);
        }

        @Override
        public String serviceName() {
            return delegate.serviceName();
        }

        @Override
        public void close() {
        }
    }

    private int chunk;

    private void put(String table, long second) {
        index.putChunk(table, second, "chunk" + chunk++, List.of(new IndexEntry(ItemKey.of(Map.of("id", AttributeText.s("k" + chunk))),
                Long.toString(second), second)));
    }
}
