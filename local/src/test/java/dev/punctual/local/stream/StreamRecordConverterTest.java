package dev.punctual.local.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Identity;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamRecord;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

class StreamRecordConverterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static LocalTables local;

    @BeforeAll
    static void startDynamoDbLocal() {
        local = new LocalTables();
    }

    @AfterAll
    static void stopDynamoDbLocal() {
        local.close();
    }

    private static Map<String, AttributeValue> everyType() {
        return Map.of(
                "id", AttributeValue.fromS("item-1"),
                "n", AttributeValue.fromN("1700000000.5"),
                "b", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {0, 1, 2, (byte) 255})),
                "ss", AttributeValue.fromSs(List.of("x", "y")),
                "ns", AttributeValue.fromNs(List.of("1", "2.5")),
                "bs", AttributeValue.fromBs(List.of(SdkBytes.fromUtf8String("hi"), SdkBytes.fromUtf8String("yo"))),
                "m", AttributeValue.fromM(Map.of("inner", AttributeValue.fromS("v"), "deep", AttributeValue.fromM(
                        Map.of("l", AttributeValue.fromL(List.of(AttributeValue.fromN("7"))))))),
                "l", AttributeValue.fromL(List.of(AttributeValue.fromS("a"), AttributeValue.fromBool(false),
                        AttributeValue.fromNul(true), AttributeValue.fromL(List.of()))),
                "nul", AttributeValue.fromNul(true),
                "bool", AttributeValue.fromBool(true));
    }

    private static Record readOnlyRecord(String table) {
        String streamArn = local.streamArn(table);
        String shardId = local.streams.describeStream(b -> b.streamArn(streamArn)).streamDescription().shards().get(0).shardId();
        String iterator = local.streams.getShardIterator(b -> b.streamArn(streamArn).shardId(shardId)
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
        List<Record> records = local.streams.getRecords(b -> b.shardIterator(iterator)).records();
        assertThat(records).hasSize(1);
        return records.get(0);
    }

    @Test
    void toLambda_fromDynamoDbLocal_carriesEveryAttributeTypeAndLambdasFields() throws Exception {
        String table = local.createTable(LocalTables.uniqueName("types"), true, null);
        local.dynamoDb.putItem(b -> b.tableName(table).item(everyType()));
        Record sdk = readOnlyRecord(table);
        String streamArn = local.streamArn(table);

        DynamodbStreamRecord lambda = StreamRecordConverter.toLambda(sdk, streamArn, "us-east-1");
        JsonNode json = LambdaRecordJson.toJson(lambda);

        assertThat(json.get("eventID").asText()).isEqualTo(sdk.eventID());
        assertThat(json.get("eventName").asText()).isEqualTo("INSERT");
        assertThat(json.get("eventVersion").asText()).isEqualTo("1.1");
        assertThat(json.get("eventSource").asText()).isEqualTo("aws:dynamodb");
        assertThat(json.get("awsRegion").asText()).isEqualTo("us-east-1");
        assertThat(json.get("eventSourceARN").asText()).isEqualTo(streamArn);
        assertThat(json.has("userIdentity")).isFalse();
        JsonNode stream = json.get("dynamodb");
        assertThat(stream.get("ApproximateCreationDateTime").isNumber()).isTrue();
        assertThat(stream.get("ApproximateCreationDateTime").longValue())
                .isEqualTo(sdk.dynamodb().approximateCreationDateTime().getEpochSecond());
        assertThat(stream.get("Keys")).isEqualTo(JSON.readTree("{\"id\":{\"S\":\"item-1\"}}"));
        assertThat(stream.get("SequenceNumber").asText()).isEqualTo(sdk.dynamodb().sequenceNumber());
        assertThat(stream.get("SizeBytes").asLong()).isEqualTo(sdk.dynamodb().sizeBytes()).isPositive();
        assertThat(stream.get("StreamViewType").asText()).isEqualTo("NEW_AND_OLD_IMAGES");
        assertThat(stream.has("OldImage")).isFalse();
        JsonNode image = stream.get("NewImage");
        assertThat(image.get("id")).isEqualTo(JSON.readTree("{\"S\":\"item-1\"}"));
        assertThat(image.get("n")).isEqualTo(JSON.readTree("{\"N\":\"1700000000.5\"}"));
        assertThat(image.get("b")).isEqualTo(JSON.readTree("{\"B\":\"AAEC/w==\"}"));
        assertThat(image.at("/ss/SS")).containsExactlyInAnyOrder(JSON.readTree("\"x\""), JSON.readTree("\"y\""));
        assertThat(image.at("/ns/NS")).containsExactlyInAnyOrder(JSON.readTree("\"1\""), JSON.readTree("\"2.5\""));
        assertThat(image.at("/bs/BS")).containsExactlyInAnyOrder(JSON.readTree("\"aGk=\""), JSON.readTree("\"eW8=\""));
        assertThat(image.get("m")).isEqualTo(JSON.readTree(
                "{\"M\":{\"inner\":{\"S\":\"v\"},\"deep\":{\"M\":{\"l\":{\"L\":[{\"N\":\"7\"}]}}}}}"));
        assertThat(image.get("l")).isEqualTo(JSON.readTree(
                "{\"L\":[{\"S\":\"a\"},{\"BOOL\":false},{\"NULL\":true},{\"L\":[]}]}"));
        assertThat(image.get("nul")).isEqualTo(JSON.readTree("{\"NULL\":true}"));
        assertThat(image.get("bool")).isEqualTo(JSON.readTree("{\"BOOL\":true}"));

        DynamodbStreamRecord roundTripped = LambdaRecordJson.fromJson(json);
        assertThat(roundTripped).isEqualTo(lambda);
        assertThat(LambdaRecordJson.toJson(roundTripped)).isEqualTo(json);
    }

    @Test
    void toLambda_ofAModify_carriesOldAndNewImages() {
        String table = local.createTable(LocalTables.uniqueName("modify"), true, null);
        local.put(table, "k", 1);
        local.put(table, "k", 2);
        String streamArn = local.streamArn(table);
        String shardId = local.streams.describeStream(b -> b.streamArn(streamArn)).streamDescription().shards().get(0).shardId();
        String iterator = local.streams.getShardIterator(b -> b.streamArn(streamArn).shardId(shardId)
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
        Record modify = local.streams.getRecords(b -> b.shardIterator(iterator)).records().get(1);

        DynamodbStreamRecord lambda = StreamRecordConverter.toLambda(modify, streamArn, "us-east-1");

        assertThat(lambda.getEventName()).isEqualTo("MODIFY");
        assertThat(lambda.getDynamodb().getOldImage().get("expiresAt").getN()).isEqualTo("1");
        assertThat(lambda.getDynamodb().getNewImage().get("expiresAt").getN()).isEqualTo("2");
    }

    @Test
    void toJson_writesTheCreationTimeWithAFraction_evenOnAWholeSecond() throws Exception {
        Record onASecond = Record.builder().eventID("e1").eventName(OperationType.INSERT)
                .dynamodb(StreamRecord.builder().approximateCreationDateTime(Instant.ofEpochSecond(1_700_000_001))
                        .keys(Map.of("id", AttributeValue.fromS("k"))).sequenceNumber("1").build())
                .build();

        String text = JSON.writeValueAsString(LambdaRecordJson.toJson(StreamRecordConverter.toLambda(onASecond, "arn:stream", "us-east-1")));
        JsonNode created = JSON.readTree(text).at("/dynamodb/ApproximateCreationDateTime");

        // AWS delivers a float (LocalStack's recording test asserts it); an integral 1700000001 is not one.
        assertThat(created.isFloatingPointNumber()).as(text).isTrue();
        assertThat(created.decimalValue()).isEqualByComparingTo("1700000001");
    }

    @Test
    void toLambda_keepsTheUserIdentityOfTtlDeletes() {
        Record ttlDelete = Record.builder()
                .eventID("e1").eventName(OperationType.REMOVE).eventVersion("1.1").eventSource("aws:dynamodb")
                .awsRegion("us-east-1")
                .userIdentity(Identity.builder().type("Service").principalId("dynamodb.amazonaws.com").build())
                .dynamodb(StreamRecord.builder()
                        .approximateCreationDateTime(Instant.ofEpochSecond(1_700_000_000))
                        .keys(Map.of("id", AttributeValue.fromS("k")))
                        .oldImage(Map.of("id", AttributeValue.fromS("k"), "ttl", AttributeValue.fromN("1")))
                        .sequenceNumber("100").sizeBytes(12L).streamViewType(StreamViewType.OLD_IMAGE).build())
                .build();

        JsonNode json = LambdaRecordJson.toJson(StreamRecordConverter.toLambda(ttlDelete, "arn:stream", "us-east-1"));

        assertThat(json.get("userIdentity").get("type").asText()).isEqualTo("Service");
        assertThat(json.get("userIdentity").get("principalId").asText()).isEqualTo("dynamodb.amazonaws.com");
        assertThat(json.at("/dynamodb/ApproximateCreationDateTime").longValue()).isEqualTo(1_700_000_000L);
        assertThat(json.at("/dynamodb/StreamViewType").asText()).isEqualTo("OLD_IMAGE");
        assertThat(json.at("/dynamodb").has("NewImage")).isFalse();
        assertThat(LambdaRecordJson.fromJson(json).getUserIdentity().getPrincipalId()).isEqualTo("dynamodb.amazonaws.com");
    }
}
