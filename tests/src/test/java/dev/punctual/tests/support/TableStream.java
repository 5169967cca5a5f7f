package dev.punctual.tests.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stream.StreamRecordConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/** A table's stream read as Lambda would be handed it, for tests that deliver batches themselves. */
public final class TableStream {

    private TableStream() {
    }

    /** The first {@code count} records of the table's (single-shard) stream, as Lambda would get them. */
    public static List<DynamodbStreamRecord> read(DynamoDbStreamsClient streams, String streamArn, int count) {
        String shardId = streams.describeStream(r -> r.streamArn(streamArn)).streamDescription().shards().get(0).shardId();
        String iterator = streams.getShardIterator(r -> r.streamArn(streamArn).shardId(shardId)
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
        List<DynamodbStreamRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (records.size() < count && iterator != null && System.nanoTime() < deadline) {
            String current = iterator;
            var page = streams.getRecords(r -> r.shardIterator(current));
            page.records().forEach(record -> records.add(StreamRecordConverter.toLambda(record, streamArn, LocalAccount.REGION)));
            iterator = page.nextShardIterator();
        }
        assertThat(records).hasSize(count);
        return records;
    }

    /** One REMOVE record of a table's stream: whose, where, and by whom (a Service principal is a TTL delete). */
    public record Removal(String key, String shardId, String sequenceNumber, String principal) {

        @Override
        public String toString() {
            return key + " at " + shardId + "/" + sequenceNumber + (principal == null ? "" : " by " + principal);
        }
    }

    /**
     * How many REMOVE records the table's stream holds for each item, by the string value of its key
     * attribute {@code keyAttribute}, counted once per sequence number: read from the trim horizon of every
     * shard, so across a restart of the runtime on its data directory too. One per item is "deleted once".
     */
    public static Map<String, Integer> removesByKey(DynamoDbStreamsClient streams, String streamArn, String keyAttribute) {
        Map<String, Integer> counts = new HashMap<>();
        removals(streams, streamArn, keyAttribute).forEach(removal -> counts.merge(removal.key(), 1, Integer::sum));
        return counts;
    }

    /**
     * Every REMOVE record of the table's stream, each sequence number once (a record two shards' readings
     * both return would count once), read from the trim horizon of every shard the stream describes.
     */
    public static List<Removal> removals(DynamoDbStreamsClient streams, String streamArn, String keyAttribute) {
        Map<String, Removal> bySequence = new java.util.LinkedHashMap<>();
        String startAfter = null;
        do {
            String exclusiveStart = startAfter;
            var description = streams.describeStream(r -> r.streamArn(streamArn).exclusiveStartShardId(exclusiveStart)).streamDescription();
            for (var shard : description.shards()) {
                String iterator = streams.getShardIterator(r -> r.streamArn(streamArn).shardId(shard.shardId())
                        .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
                while (iterator != null) {
                    String current = iterator;
                    var page = streams.getRecords(r -> r.shardIterator(current).limit(1000));
                    page.records().stream().filter(record -> "REMOVE".equals(record.eventNameAsString()))
                            .forEach(record -> bySequence.putIfAbsent(record.dynamodb().sequenceNumber(), new Removal(
                                    record.dynamodb().keys().get(keyAttribute).s(), shard.shardId(), record.dynamodb().sequenceNumber(),
                                    record.userIdentity() == null ? null : record.userIdentity().principalId())));
                    iterator = page.records().isEmpty() ? null : page.nextShardIterator();
                }
            }
            startAfter = description.lastEvaluatedShardId();
        } while (startAfter != null);
        return new ArrayList<>(bySequence.values());
    }

    /** A Lambda event holding {@code records}. */
    public static DynamodbEvent event(List<DynamodbStreamRecord> records) {
        DynamodbEvent event = new DynamodbEvent();
        event.setRecords(new ArrayList<>(records));
        return event;
    }
}
