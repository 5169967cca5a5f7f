package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalClients;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * {@code kill -9} of {@code punctual local --mode windowed --data-dir D} while buckets are pending (one
 * wave indexed into one-second buckets) and a second wave of stream records is in flight; a restart on D
 * must expire every item, none early and none twice: the index, the bucket executions and the stream
 * checkpoints all survive the crash.
 */
class WindowedKillNineTest {

    private static final String TABLE = "crash-windowed";

    @TempDir
    Path data;

    @Test
    void killNineWithPendingBucketsAndBatchesInFlight_restartExpiresEveryItemOnceAndNoneEarly() throws Exception {
        Map<String, Long> ttls = new ConcurrentHashMap<>();
        Map<String, Long> writtenAt = new ConcurrentHashMap<>();
        List<String> early = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicReference<DynamoDbClient> current = new AtomicReference<>();
        AtomicBoolean watching = new AtomicBoolean(true);

        long t0 = System.nanoTime();
        PunctualProcess first = PunctualProcess.start(data, "--mode", "windowed");
        DynamoDbClient firstClient = LocalClients.dynamoDb(first.dynamoDbEndpoint());
        current.set(firstClient);
        FaultFixtures.createTable(firstClient, TABLE, true);
        long now = Instant.now().getEpochSecond();
        Map<String, Long> firstWave = KillNineRecoveryTest.wave("a-", 600, now + 20, 8);
        Map<String, Long> secondWave = KillNineRecoveryTest.wave("b-", 200, now + 21, 7);
        ttls.putAll(firstWave);
        ttls.putAll(secondWave);
        KillNineRecoveryTest.write(firstClient, TABLE, firstWave, writtenAt);
        Thread reads = new Thread(() -> KillNineRecoveryTest.watchForEarlyDeletes(current, TABLE, ttls, writtenAt, early, watching),
                "early-delete-watch");
        reads.start();
        KillNineRecoveryTest.write(firstClient, TABLE, secondWave, writtenAt);
        first.kill();
        firstClient.close();
        KillNineRecoveryTest.log(t0, "killed");

        try (PunctualProcess second = PunctualProcess.start(data, "--mode", "windowed");
             DynamoDbClient secondClient = LocalClients.dynamoDb(second.dynamoDbEndpoint());
             DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(second.dynamoDbEndpoint())) {
            current.set(secondClient);
            assertThat(second.output()).as("the restart resumed the journal").contains("Recovered");
            long lastTtl = ttls.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            KillNineRecoveryTest.awaitEmptyAfter(secondClient, TABLE, lastTtl);
            KillNineRecoveryTest.log(t0, "table empty");
            watching.set(false);
            reads.join();

            Map<String, Integer> removes = removesById(secondClient, streams);
            assertThat(removes.keySet()).as("every item of both waves was deleted").containsExactlyInAnyOrderElementsOf(ttls.keySet());
            assertThat(removes.values()).as("no item deleted twice").allSatisfy(count -> assertThat(count).isEqualTo(1));
            assertThat(early).as("items missing from a table read that ended before their TTL").isEmpty();
        } finally {
            watching.set(false);
        }
    }

    /** REMOVE records per item id in the table's stream, which survived the crash with the database. */
    private static Map<String, Integer> removesById(DynamoDbClient dynamoDb, DynamoDbStreamsClient streams) {
        String streamArn = dynamoDb.describeTable(r -> r.tableName(TABLE)).table().latestStreamArn();
        Map<String, Integer> removes = new HashMap<>();
        for (var shard : streams.describeStream(r -> r.streamArn(streamArn)).streamDescription().shards()) {
            String iterator = streams.getShardIterator(r -> r.streamArn(streamArn).shardId(shard.shardId())
                    .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
            while (iterator != null) {
                String at = iterator;
                var page = streams.getRecords(r -> r.shardIterator(at));
                for (Record record : page.records()) {
                    if ("REMOVE".equals(record.eventNameAsString())) {
                        removes.merge(record.dynamodb().keys().get(FaultFixtures.KEY).s(), 1, Integer::sum);
                    }
                }
                iterator = page.records().isEmpty() ? null : page.nextShardIterator();
            }
        }
        return new LinkedHashMap<>(removes);
    }
}
