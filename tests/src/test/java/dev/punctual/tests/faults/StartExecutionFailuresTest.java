package dev.punctual.tests.faults;

import static dev.punctual.tests.faults.FaultFixtures.punctual;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.DeadLetter;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * StartExecution failing for part of a batch (the open-execution quota, {@code ExecutionLimitExceeded}):
 * the partial batch response retries from the first failed record on, the records land in the dead
 * letters after MaximumRetryAttempts, survive a restart, and {@code punctual dlq redrive} schedules them.
 */
class StartExecutionFailuresTest {

    private static final String TABLE = "quota-orders";
    private static final int ITEMS = 25;
    private static final int QUOTA = 10;

    @TempDir
    Path data;

    @Test
    void startExecutionFailures_deadLetterAfterRetries_thenDlqRedriveSchedulesThem() throws Exception {
        // Far enough out that the quota's executions stay open while the others exhaust their retries.
        long ttl = Instant.now().plusSeconds(25).getEpochSecond();
        Map<String, Long> items = new LinkedHashMap<>();
        for (int i = 0; i < ITEMS; i++) {
            items.put("q-" + i, ttl);
        }
        MappingSettings mapping = MappingSettings.builder().maximumRetryAttempts(2).retryDelay(Duration.ofMillis(100)).build();
        List<DeadLetter> letters;
        try (LocalRuntime quota = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withDataDirectory(data)
                .withMapping(mapping).withMaxOpenExecutions(QUOTA));
             SfnClient quotaSfn = LocalClients.stepFunctions(quota.stepFunctionsEndpoint())) {
            FaultFixtures.createTable(quota.dynamoDb(), TABLE, true);
            Await.until("table watched", Duration.ofSeconds(20), () -> {
                quota.streamPoller().discoverTables();
                return quota.streamPoller().watchedTables().stream().anyMatch(t -> t.tableName().equals(TABLE));
            });
            FaultFixtures.batchWrite(quota.dynamoDb(), TABLE, items);
            // Done when every item has either an execution or a dead letter: a count of dead-lettered records
            // can reach ITEMS - QUOTA while a later batch is still being retried.
            Await.until("every item started or dead-lettered", Duration.ofSeconds(20), () -> {
                Set<String> accounted = new HashSet<>();
                quota.deadLetters().list().forEach(l -> l.records().forEach(r -> accounted.add(r.getDynamodb().getKeys().get("id").getS())));
                // At most QUOTA items can have an execution: until the others are dead-lettered, reading
                // every execution's history (two calls each) at every check only takes the CPU the retries need.
                if (accounted.size() < ITEMS - QUOTA) {
                    return false;
                }
                FaultFixtures.executions(quotaSfn, quota.stateMachineArn(), TABLE).forEach(e -> accounted.add(e.itemId()));
                return accounted.containsAll(items.keySet());
            });
            letters = quota.deadLetters().list();
            assertThat(quota.stepFunctionsEngine().openExecutions()).isEqualTo(QUOTA);
        }

        Set<String> deadLettered = new HashSet<>();
        letters.forEach(letter -> letter.records().forEach(r -> deadLettered.add(r.getDynamodb().getKeys().get("id").getS())));
        assertThat(letters).allSatisfy(letter -> assertThat(letter.condition()).isEqualTo(DeadLetter.RETRY_ATTEMPTS_EXHAUSTED));

        FaultFixtures.CliResult list = punctual("dlq", "list", "--data-dir", data.toString());
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out()).contains(TABLE).contains(DeadLetter.RETRY_ATTEMPTS_EXHAUSTED)
                .contains(letters.size() + " dead letter(s), " + letters.size() + " not redriven");
        letters.forEach(letter -> assertThat(list.out()).contains(letter.id()));

        // The quota is raised (a restart on the same data directory); the stream does not deliver the
        // dead-lettered records again: only a redrive schedules them.
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withDataDirectory(data).withMapping(mapping));
             SfnClient sfn = LocalClients.stepFunctions(runtime.stepFunctionsEndpoint())) {
            List<FaultFixtures.Observed> before = FaultFixtures.executions(sfn, runtime.stateMachineArn(), TABLE);
            Set<String> scheduled = new HashSet<>();
            before.forEach(e -> scheduled.add(e.itemId()));
            assertThat(scheduled).hasSize(QUOTA);
            Set<String> unscheduled = new HashSet<>(items.keySet());
            unscheduled.removeAll(scheduled);
            assertThat(deadLettered).as("every record whose start failed is in a dead letter").containsAll(unscheduled);
            assertThat(letters).as("retried from the first failed record on: records that succeeded before it were checkpointed")
                    .allSatisfy(letter -> assertThat(unscheduled).contains(letter.records().get(0).getDynamodb().getKeys().get("id").getS()));

            FaultFixtures.CliResult redrive = punctual("dlq", "redrive", "--data-dir", data.toString(),
                    "--sfn-endpoint", runtime.stepFunctionsEndpoint().toString());
            assertThat(redrive.exitCode()).as(redrive.out() + redrive.err()).isZero();
            assertThat(redrive.out()).contains(letters.size() + " redriven, 0 failed");

            Await.until("every item expired", Duration.ofSeconds(60), () -> FaultFixtures.ids(runtime.dynamoDb(), TABLE).isEmpty());
            Await.until("every execution closed", Duration.ofSeconds(10), () -> FaultFixtures.executions(sfn, runtime.stateMachineArn(), TABLE)
                    .stream().noneMatch(e -> "RUNNING".equals(e.status())));
            Map<String, List<FaultFixtures.Observed>> expired =
                    FaultFixtures.expiredByItem(FaultFixtures.executions(sfn, runtime.stateMachineArn(), TABLE));
            assertThat(expired.keySet()).containsExactlyInAnyOrderElementsOf(items.keySet());
            expired.values().forEach(deletes -> {
                assertThat(deletes).hasSize(1);
                assertThat(deletes.get(0).deletedAt()).isAfterOrEqualTo(Instant.ofEpochSecond(ttl));
            });
        }
        assertThat(punctual("dlq", "list", "--data-dir", data.toString()).out()).contains(letters.size() + " dead letter(s), 0 not redriven");
    }
}
