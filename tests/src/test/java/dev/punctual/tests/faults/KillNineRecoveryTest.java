package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.TableStream;
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
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;
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
    /** Seconds from an item's write to its TTL, at the least. */
    static final long PENDING = 20;

    @TempDir
    Path data;

    @Test
    void killNineWhilePendingAndInFlight_restartExpiresEveryItemOnceAndNoneEarly() throws Exception {
        Map<String, Long> ttls = new ConcurrentHashMap<>();
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
        write(firstClient, TABLE, "a-", FIRST_WAVE, 8, ttls, writtenAt);
        log(t0, "first wave written");
        reads.start();
        write(firstClient, TABLE, "b-", SECOND_WAVE, 7, ttls, writtenAt);
        // Right after the second wave: its records are in the stream, some in a batch being handled, and every
        // item written in the last PENDING seconds is pending, however long the writes took.
        log(t0, "both waves written");
        first.kill();
        firstClient.close();
        log(t0, "killed");

        try (PunctualProcess second = PunctualProcess.start(data);
             DynamoDbClient secondClient = LocalClients.dynamoDb(second.dynamoDbEndpoint());
             DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(second.dynamoDbEndpoint());
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

            // Once each, none lost: the stream, which survived the crash with the database, holds one REMOVE for
            // every item of both waves and no more, counted once per sequence number. Only Punctual deletes here:
            // DynamoDB Local's TTL job never runs, not even on the restart's first pass over a TTL table.
            List<TableStream.Removal> removals = TableStream.removals(streams,
                    secondClient.describeTable(r -> r.tableName(TABLE)).table().latestStreamArn(), FaultFixtures.KEY);
            Map<String, List<TableStream.Removal>> removesByKey = removals.stream()
                    .collect(java.util.stream.Collectors.groupingBy(TableStream.Removal::key));
            assertThat(removesByKey.keySet()).as("every item of both waves was deleted").containsExactlyInAnyOrderElementsOf(ttls.keySet());
            assertThat(removesByKey.values()).as("no item deleted twice (REMOVEs by distinct sequence number; shard/sequence of each)")
                    .allSatisfy(removes -> assertThat(removes).hasSize(1));
            assertThat(removals).as("REMOVEs by a Service principal: DynamoDB Local's TTL job, which never runs here")
                    .allSatisfy(removal -> assertThat(removal.principal()).isNull());
            // An execution whose delete completed just before the kill, but whose TaskSucceeded was not yet
            // durable, repeats the delete after the restart and ends Superseded: how many do depends on where the
            // kill fell, so the count is not a promise. Every execution ends well, and none deleted early.
            List<FaultFixtures.Observed> executions = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE);
            Map<String, List<FaultFixtures.Observed>> expired = FaultFixtures.expiredByItem(executions);
            assertThat(expired.values()).as("no item's delete succeeded twice").allSatisfy(deletes -> assertThat(deletes).hasSize(1));
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
     * Waits until {@code table} is empty after {@code lastTtl}. No item may go before its TTL, so the table
     * cannot be empty earlier: until the last TTL the wait reads the clock rather than scan the table, leaving
     * DynamoDB Local to the deletes and to the early-delete watch. From then on it waits as long as items keep
     * going (a restarted process works through its backlog at the machine's pace), and fails when none has
     * gone for a minute.
     */
    static void awaitEmptyAfter(DynamoDbClient client, String table, long lastTtl) {
        Await.until("the last TTL", Duration.ofSeconds(Math.max(0, lastTtl - Instant.now().getEpochSecond()) + 5),
                () -> Instant.now().getEpochSecond() >= lastTtl);
        Await.whileProgressing("table empty after every TTL", Duration.ofMinutes(1), () -> FaultFixtures.ids(client, table).size());
    }

    /** Phase timings in the test's output, to tell a slow machine from a slow recovery. */
    static void log(long startNanos, String phase) {
        System.out.printf("%6d ms  %s%n", (System.nanoTime() - startNanos) / 1_000_000, phase);
    }

    /**
     * Writes {@code items} items named {@code prefix + i} with BatchWriteItem from four threads, 25 a call.
     * Each call's TTLs are taken as it is sent: {@link #PENDING} seconds out, spread over {@code spreadSeconds}
     * across the wave, so every item is pending for at least that long after it was written, however slow
     * the writes. Notes each TTL before the call and when the call was acknowledged.
     */
    static void write(DynamoDbClient dynamoDb, String table, String prefix, int items, int spreadSeconds,
            Map<String, Long> ttls, Map<String, Long> writtenAt) throws Exception {
        java.util.concurrent.ExecutorService writers = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<?>> calls = new ArrayList<>();
            for (int from = 0; from < items; from += 25) {
                int first = from;
                calls.add(writers.submit(() -> {
                    long base = Instant.now().getEpochSecond() + PENDING;
                    Map<String, Long> batch = new LinkedHashMap<>();
                    for (int i = first; i < Math.min(items, first + 25); i++) {
                        batch.put(prefix + i, base + (long) i * spreadSeconds / items);
                    }
                    ttls.putAll(batch);
                    FaultFixtures.batchWrite(dynamoDb, table, batch);
                    long acknowledged = System.currentTimeMillis();
                    batch.keySet().forEach(id -> writtenAt.put(id, acknowledged));
                    return null;
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
