package dev.punctual.local.dynamodb;

import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/** Reads a stream as an application's own reader or the AWS CLI would: every shard, from TRIM_HORIZON. */
public final class StreamReads {

    private StreamReads() {
    }

    /** Every record of {@code streamArn} still kept, shard by shard, oldest first. */
    public static List<Record> allRecords(DynamoDbStreamsClient streams, String streamArn) {
        List<Record> records = new ArrayList<>();
        streams.describeStream(b -> b.streamArn(streamArn)).streamDescription().shards().forEach(shard -> {
            String iterator = streams.getShardIterator(b -> b.streamArn(streamArn).shardId(shard.shardId())
                    .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
            while (iterator != null) {
                String current = iterator;
                var page = streams.getRecords(b -> b.shardIterator(current).limit(1000));
                records.addAll(page.records());
                iterator = page.records().isEmpty() ? null : page.nextShardIterator();
            }
        });
        return records;
    }
}
