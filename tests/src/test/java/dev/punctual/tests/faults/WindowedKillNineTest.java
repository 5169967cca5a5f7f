package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.tests.support.TableStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
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
        KillNineRecoveryTest.write(firstClient, TABLE, "a-", 600, 8, ttls, writtenAt);
        Thread reads = new Thread(() -> KillNineRecoveryTest.watchForEarlyDeletes(current, TABLE, ttls, writtenAt, early, watching),
                "early-delete-watch");
        reads.start();
        KillNineRecoveryTest.write(firstClient, TABLE, "b-", 200, 7, ttls, writtenAt);
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

            Map<String, Integer> removes = TableStream.removesByKey(streams,
                    secondClient.describeTable(r -> r.tableName(TABLE)).table().latestStreamArn(), FaultFixtures.KEY);
            assertThat(removes.keySet()).as("every item of both waves was deleted").containsExactlyInAnyOrderElementsOf(ttls.keySet());
            assertThat(removes.values()).as("no item deleted twice").allSatisfy(count -> assertThat(count).isEqualTo(1));
            assertThat(early).as("items missing from a table read that ended before their TTL").isEmpty();
        } finally {
            watching.set(false);
        }
    }
}
