package dev.punctual.local.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.retention.Retention;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The trim against DynamoDB Local itself: what it leaves is read back through DynamoDB Streams over HTTP,
 * as the AWS CLI or an application's own reader would read it.
 */
class StreamRecordTrimTest {

    private static final StreamRecordTrim.Readers NO_READER = (stream, shard) -> Long.MAX_VALUE;

    private DynamoDbLocalServer server;
    private DynamoDbClient http;
    private DynamoDbStreamsClient streams;

    @BeforeEach
    void start() {
        server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
        http = LocalDynamoDbClients.dynamoDb(server.endpoint());
        streams = LocalDynamoDbClients.streams(server.endpoint());
    }

    @AfterEach
    void stop() {
        streams.close();
        http.close();
        server.close();
    }

    @Test
    void theCountBound_keepsTheNewestRecords_andTrimHorizonStartsAtTheOldestKept() {
        String stream = createStreamTable("orders");
        write("orders", 30);

        long forgotten = trim(Retention.of(10, Duration.ofDays(1)), Clock.systemUTC(), NO_READER);

        assertThat(forgotten).isEqualTo(20);
        assertThat(ids(readAll(stream))).containsExactlyElementsOf(range(20, 30));
    }

    @Test
    void theAgeBound_forgetsWhatIsOlder_andKeepsWhatIsNot() {
        String stream = createStreamTable("orders");
        write("orders", 5);

        assertThat(trim(Retention.of(1_000, Duration.ofHours(1)), Clock.systemUTC(), NO_READER)).isZero();
        assertThat(readAll(stream)).hasSize(5);

        Clock twoHoursOn = Clock.fixed(Instant.now().plus(Duration.ofHours(2)), ZoneOffset.UTC);
        assertThat(trim(Retention.of(1_000, Duration.ofHours(1)), twoHoursOn, NO_READER)).isEqualTo(4);
        List<Record> kept = readAll(stream);
        assertThat(ids(kept)).as("the newest record of all stays").containsExactly(id(4));

        write("orders", 5, 7);
        List<Record> after = readAll(stream);
        assertThat(ids(after)).as("the stream goes on after a trim").containsExactly(id(4), id(5), id(6));
        assertThat(Long.parseLong(after.get(1).dynamodb().sequenceNumber()))
                .as("numbered after every record handed out before")
                .isGreaterThan(Long.parseLong(kept.get(0).dynamodb().sequenceNumber()));
    }

    @Test
    void whatAReaderStillNeeds_isKeptPastTheBounds_andOtherStreamsAreTrimmedBesideIt() {
        String paused = createStreamTable("paused");
        String other = createStreamTable("other");
        write("paused", 10);
        write("other", 10);
        List<Record> pausedRecords = readAll(paused);
        String positionText = pausedRecords.get(3).dynamodb().sequenceNumber();
        long position = Long.parseLong(positionText);
        String pausedShard = onlyShard(paused).shardId();
        StreamRecordTrim.Readers reader = (stream, shard) ->
                stream.equals(paused) && shard.equals(pausedShard) ? position : Long.MAX_VALUE;

        trim(Retention.of(2, Duration.ofDays(1)), Clock.systemUTC(), reader);

        assertThat(ids(readAll(paused))).as("from the reader's last record on").containsExactlyElementsOf(range(3, 10));
        assertThat(ids(readAll(other))).as("the newest two of all streams").containsExactlyElementsOf(range(8, 10));
        List<Record> resumed = streams.getRecords(r -> r.shardIterator(streams.getShardIterator(i -> i.streamArn(paused)
                .shardId(pausedShard).shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER)
                .sequenceNumber(positionText)).shardIterator())).records();
        assertThat(ids(resumed)).as("a reader resumes after its position").containsExactlyElementsOf(range(4, 10));
    }

    @Test
    void manyRecords_goInRanges_andNoneOfTheKeptIsLost() {
        String stream = createStreamTable("orders");
        int items = (int) (2 * StreamRecordTrim.CHUNK + 500);
        write("orders", items);

        long forgotten = trim(Retention.of(100, Duration.ofDays(1)), Clock.systemUTC(), NO_READER);

        assertThat(forgotten).isEqualTo(items - 100);
        assertThat(ids(readAll(stream))).containsExactlyElementsOf(range(items - 100, items));
    }

    private long trim(Retention bounds, Clock clock, StreamRecordTrim.Readers readers) {
        return new StreamRecordTrim(server, bounds, clock, readers).trim();
    }

    private String createStreamTable(String name) {
        return http.createTable(b -> b.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)))
                .tableDescription().latestStreamArn();
    }

    /** Items {@code item-00000} to {@code count - 1}, in order, 25 to a batch, through the in-process client. */
    private void write(String table, int count) {
        write(table, 0, count);
    }

    /** New items {@code item-<first>} to {@code item-<end - 1>}: an unchanged item would give no record. */
    private void write(String table, int first, int end) {
        for (int from = first; from < end; from += 25) {
            List<WriteRequest> batch = IntStream.range(from, Math.min(end, from + 25))
                    .mapToObj(i -> WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                            "id", AttributeValue.fromS(id(i)))).build()).build())
                    .toList();
            server.inProcess().dynamoDb().batchWriteItem(b -> b.requestItems(Map.of(table, batch)));
        }
    }

    private Shard onlyShard(String stream) {
        List<Shard> shards = streams.describeStream(b -> b.streamArn(stream)).streamDescription().shards();
        assertThat(shards).hasSize(1);
        return shards.get(0);
    }

    private List<Record> readAll(String stream) {
        onlyShard(stream);
        return StreamReads.allRecords(streams, stream);
    }

    private static List<String> ids(List<Record> records) {
        return records.stream().map(r -> r.dynamodb().keys().get("id").s()).toList();
    }

    private static List<String> range(int from, int to) {
        return IntStream.range(from, to).mapToObj(StreamRecordTrimTest::id).toList();
    }

    private static String id(int i) {
        return String.format("item-%05d", i);
    }
}
