package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * {@code kill -9} of {@code punctual local --data-dir D} while two thousand expirations are pending
 * and a second wave of stream records is still being delivered; a restart on D (on new ports) must
 * expire every item, none early, none twice, and skip no stream record.
 */
class KillNineRecoveryTest {

    private static final String TABLE = "crash-orders";
    private static final int FIRST_WAVE = 600;
    private static final int SECOND_WAVE = 200;

    @TempDir
    Path data;

    @Test
    void killNineWhilePendingAndInFlight_restartExpiresEveryItemOnceAndNoneEarly() throws Exception {
        Map<String, Long> ttls = new LinkedHashMap<>();
        Map<String, Long> writtenAt = new ConcurrentHashMap<>();
        List<String> early = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicReference<DynamoDbClient> current = new AtomicReference<>();
        AtomicBoolean watching = new AtomicBoolean(true);

        long t0 = System.nanoTime();
        PunctualProcess first = PunctualProcess.start(data);
        log(t0, "first process ready");
        DynamoDbClient firstClient = LocalClients.dynamoDb(first.dynamoDbEndpoint());
        current.set(firstClient);
        FaultFixtures.createTable(firstClient, TABLE, true);
        Thread reads = new Thread(() -> watchForEarlyDeletes(current, TABLE, ttls, writtenAt, early, watching), "early-delete-watch");

        log(t0, "table created");
        long now = Instant.now().getEpochSecond();
        Map<String, Long> firstWave = wave("a-", FIRST_WAVE, now + 20, 8);
        Map<String, Long> secondWave = wave("b-", SECOND_WAVE, now + 21, 7);
        ttls.putAll(firstWave);
        ttls.putAll(secondWave);
        write(firstClient, TABLE, firstWave, writtenAt);
        log(t0, "first wave written");
        reads.start();
        write(firstClient, TABLE, secondWave, writtenAt);
        // Right after the second wave: its records are in the stream, some in a batch being handled.
        log(t0, "both waves written");
        first.kill();
        firstClient.close();
        log(t0, "killed");

        try (PunctualProcess second = PunctualProcess.start(data);
             DynamoDbClient secondClient = LocalClients.dynamoDb(second.dynamoDbEndpoint());
             SfnClient sfn = LocalClients.stepFunctions(second.stepFunctionsEndpoint())) {
            current.set(secondClient);
            log(t0, "restarted: " + second.output().lines().filter(l -> l.startsWith("Recovered")).findFirst().orElse("no recovery line"));
            assertThat(second.output()).as("the restart resumed the journal").contains("Recovered");
            assertThat(FaultFixtures.ids(secondClient, TABLE)).as("items written before the kill survived it")
                    .isSubsetOf(ttls.keySet());

            long lastTtl = ttls.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            awaitEmptyAfter(secondClient, TABLE, lastTtl);
            log(t0, "table empty");
            watching.set(false);
            reads.join();

            List<FaultFixtures.Observed> executions = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE);
            Map<String, List<FaultFixtures.Observed>> expired = FaultFixtures.expiredByItem(executions);
            assertThat(executions).extracting(FaultFixtures.Observed::itemId).as("no stream record skipped: every item of both waves got an execution")
                    .containsAll(ttls.keySet());
            assertThat(expired.values()).as("no item deleted twice").allSatisfy(deletes -> assertThat(deletes).hasSize(1));
            // An execution whose delete completed just before the kill, but whose TaskSucceeded was not yet
            // durable, repeats the delete after the restart and ends Superseded: the item was still deleted
            // once, by Punctual (no native TTL job runs locally). Most executions must end Expired.
            assertThat(expired).as("items whose execution ended Expired").hasSizeGreaterThan(ttls.size() * 9 / 10);
            assertThat(expired.values()).as("no delete before its TTL").allSatisfy(deletes -> assertThat(deletes.get(0).deletedAt())
                    .isAfterOrEqualTo(Instant.ofEpochSecond(ttls.get(deletes.get(0).itemId()))));
            assertThat(executions).as("nothing failed").allSatisfy(e -> assertThat(e.status()).isEqualTo("SUCCEEDED"));
            assertThat(executions).allSatisfy(e -> assertThat(e.outcome())
                    .isIn(ExpiryWorkflow.OUTCOME_EXPIRED, ExpiryWorkflow.OUTCOME_SUPERSEDED));
            assertThat(early).as("items missing from a table read that ended before their TTL").isEmpty();
        } finally {
            watching.set(false);
        }
    }

    /**
     * Waits until {@code table} is empty, at most a minute past {@code lastTtl}. No item may go before its
     * TTL, so the table cannot be empty earlier: until the last TTL the wait reads the clock rather than
     * scan the table, leaving DynamoDB Local to the deletes and to the early-delete watch.
     */
    static void awaitEmptyAfter(DynamoDbClient client, String table, long lastTtl) {
        Await.until("table empty after every TTL", Duration.ofSeconds(Math.max(60, lastTtl - Instant.now().getEpochSecond() + 60)),
                () -> Instant.now().getEpochSecond() >= lastTtl && FaultFixtures.ids(client, table).isEmpty());
    }

    /** Phase timings in the test's output, to tell a slow machine from a slow recovery. */
    static void log(long startNanos, String phase) {
        System.out.printf("%6d ms  %s%n", (System.nanoTime() - startNanos) / 1_000_000, phase);
    }

    static Map<String, Long> wave(String prefix, int items, long firstTtl, int spreadSeconds) {
        Map<String, Long> wave = new LinkedHashMap<>();
        for (int i = 0; i < items; i++) {
            wave.put(prefix + i, firstTtl + (long) i * spreadSeconds / items);
        }
        return wave;
    }

    /** BatchWriteItem from four threads, 25 items a call, noting when each call was acknowledged. */
    static void write(DynamoDbClient dynamoDb, String table, Map<String, Long> items, Map<String, Long> writtenAt) throws Exception {
        List<Map.Entry<String, Long>> entries = new ArrayList<>(items.entrySet());
        java.util.concurrent.ExecutorService writers = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<?>> calls = new ArrayList<>();
            for (int from = 0; from < entries.size(); from += 25) {
                Map<String, Long> batch = new LinkedHashMap<>();
                entries.subList(from, Math.min(entries.size(), from + 25)).forEach(e -> batch.put(e.getKey(), e.getValue()));
                calls.add(writers.submit(() -> {
                    FaultFixtures.batchWrite(dynamoDb, table, batch);
                    long acknowledged = System.currentTimeMillis();
                    batch.keySet().forEach(id -> writtenAt.put(id, acknowledged));
                }));
            }
            for (java.util.concurrent.Future<?> call : calls) {
                call.get();
            }
        } finally {
            writers.shutdownNow();
        }
    }

    /**
     * Scans the table over and over (across the crash, against whichever process is up); an item that
     * was written before a scan began and is missing from a scan that ended before its TTL went early.
     */
    static void watchForEarlyDeletes(AtomicReference<DynamoDbClient> client, String table, Map<String, Long> ttls,
                                             Map<String, Long> writtenAt, List<String> early, AtomicBoolean watching) {
        while (watching.get()) {
            long started = System.currentTimeMillis();
            Set<String> present;
            try {
                present = FaultFixtures.ids(client.get(), table);
            } catch (RuntimeException downOrRestarting) {
                continue;
            }
            long ended = System.currentTimeMillis();
            try {
                // Leave DynamoDB Local (one SQLite file) to the writers and deletes most of the time.
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            writtenAt.forEach((id, at) -> {
                if (at < started && ended < ttls.get(id) * 1000 && !present.contains(id)) {
                    early.add(id);
                }
            });
        }
    }
}
