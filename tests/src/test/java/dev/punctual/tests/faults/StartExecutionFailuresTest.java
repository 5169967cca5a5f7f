package dev.punctual.tests.faults;

import static dev.punctual.tests.faults.FaultFixtures.punctual;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.stream.DeadLetter;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.time.ManualTimer;
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
 *
 * <p>Both runtimes run on a manual timer, the second starting at the instant the first stopped at. The
 * mapping's retry delay is on that timer, so the wait for every record to be started or dead-lettered
 * moves time a retry delay at each check; the quota's executions stay open because their TTLs are an
 * hour of the runtime's time away, and that hour is then skipped ({@link SkippedTime}), stopping at
 * every instant the runtime owes work at: the last millisecond before the TTL finds every item still
 * there, the TTL finds every one gone, each by one execution whose delete is not before it.
 *
 * <p>The {@code punctual dlq} commands run as a user's would, on the wall clock: {@code list} only reads
 * the data directory, and {@code redrive} runs the real handler, which reads the TTLs as an hour ahead
 * (the runtime's clock started at the wall clock's now and has moved seconds), and starts executions on
 * the runtime's endpoint, whose Waits count on the runtime's clock.
 *
 * <p>DynamoDB Local's own TTL job, which deletes items whose TTL lies between five years before the wall
 * clock's now and that now, never runs in the runtime; the TTLs also lie an hour after the wall clock's
 * now at the test's start, so when the runtime's clock reaches them the wall clock is still about an hour
 * short. Only Punctual can delete them, and a delete by anything else (the item gone before its
 * execution's delete) fails the one-execution-per-item check.
 */
class StartExecutionFailuresTest {

    private static final String TABLE = "quota-orders";
    private static final int ITEMS = 25;
    private static final int QUOTA = 10;
    /** The TTLs' distance from the start, on the runtime's clock and the wall clock's: see the class comment. */
    private static final Duration LEAD = Duration.ofHours(1);
    private static final Duration RETRY_DELAY = Duration.ofMillis(100);

    @TempDir
    Path data;

    @Test
    void startExecutionFailures_deadLetterAfterRetries_thenDlqRedriveSchedulesThem() throws Exception {
        ManualTimer quotaTimer = ManualTimer.startingAt(Instant.now());
        long ttl = quotaTimer.clock().instant().plus(LEAD).getEpochSecond();
        Map<String, Long> items = new LinkedHashMap<>();
        for (int i = 0; i < ITEMS; i++) {
            items.put("q-" + i, ttl);
        }
        MappingSettings mapping = MappingSettings.builder().maximumRetryAttempts(2).retryDelay(RETRY_DELAY).build();
        List<DeadLetter> letters;
        Instant stoppedAt;
        try (LocalRuntime quota = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withDataDirectory(data)
                .withMapping(mapping).withMaxOpenExecutions(QUOTA).withTimer(quotaTimer));
             SfnClient quotaSfn = LocalClients.stepFunctions(quota.endpoints().stepFunctions())) {
            FaultFixtures.createTable(quota.dynamoDb(), TABLE, true);
            Await.until("table watched", Duration.ofSeconds(20), () -> {
                quota.streamPoller().discoverTables();
                return quota.streamPoller().watchedTables().stream().anyMatch(t -> t.tableName().equals(TABLE));
            });
            FaultFixtures.batchWrite(quota.dynamoDb(), TABLE, items);
            // Done when every item has either an execution or a dead letter: a count of dead-lettered records
            // can reach ITEMS - QUOTA while a later batch is still being retried. A retry waits its delay on
            // the runtime's timer, so each check moves time by that delay (seconds in all, against the hour
            // to the TTLs); the 20 s are a hang guard on the wall clock.
            Await.until(() -> "every item started or dead-lettered, at " + quotaTimer.clock().instant(), Duration.ofSeconds(20), () -> {
                quotaTimer.advance(RETRY_DELAY);
                Set<String> accounted = new HashSet<>();
                quota.streamPoller().deadLetters().list().forEach(l -> l.records().forEach(r -> accounted.add(r.getDynamodb().getKeys().get("id").getS())));
                // At most QUOTA items can have an execution: until the others are dead-lettered, reading
                // every execution's history (two calls each) at every check only takes the CPU the retries need.
                if (accounted.size() < ITEMS - QUOTA) {
                    return false;
                }
                FaultFixtures.executions(quotaSfn, LocalDefaults.stateMachineArn(), TABLE).forEach(e -> accounted.add(e.itemId()));
                return accounted.containsAll(items.keySet());
            });
            // Nothing more is owed now: no retry pending, every record read and handled.
            SkippedTime.of(quota).settle();
            letters = quota.streamPoller().deadLetters().list();
            assertThat(quota.stepFunctionsEngine().openExecutions()).isEqualTo(QUOTA);
            stoppedAt = quotaTimer.clock().instant();
        }
        assertThat(stoppedAt).as("the quota's executions were open well before their TTL").isBefore(Instant.ofEpochSecond(ttl));

        Set<String> deadLettered = new HashSet<>();
        letters.forEach(letter -> letter.records().forEach(r -> deadLettered.add(r.getDynamodb().getKeys().get("id").getS())));
        assertThat(letters).allSatisfy(letter -> assertThat(letter.condition()).isEqualTo(DeadLetter.RETRY_ATTEMPTS_EXHAUSTED));

        FaultFixtures.CliResult list = punctual("dlq", "list", "--data-dir", data.toString());
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out()).contains(TABLE).contains(DeadLetter.RETRY_ATTEMPTS_EXHAUSTED)
                .contains(letters.size() + " dead letter(s), " + letters.size() + " not redriven");
        letters.forEach(letter -> assertThat(list.out()).contains(letter.id()));

        // The quota is raised (a restart on the same data directory, its time going on from where the first
        // runtime's stopped); the stream does not deliver the dead-lettered records again: only a redrive
        // schedules them.
        ManualTimer timer = ManualTimer.startingAt(stoppedAt);
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withDataDirectory(data)
                .withMapping(mapping).withTimer(timer));
             SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            SkippedTime time = SkippedTime.of(runtime);
            List<FaultFixtures.Observed> before = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE);
            Set<String> scheduled = new HashSet<>();
            before.forEach(e -> scheduled.add(e.itemId()));
            assertThat(scheduled).hasSize(QUOTA);
            Set<String> unscheduled = new HashSet<>(items.keySet());
            unscheduled.removeAll(scheduled);
            assertThat(deadLettered).as("every record whose start failed is in a dead letter").containsAll(unscheduled);
            assertThat(letters).as("retried from the first failed record on: records that succeeded before it were checkpointed")
                    .allSatisfy(letter -> assertThat(unscheduled).contains(letter.records().get(0).getDynamodb().getKeys().get("id").getS()));

            FaultFixtures.CliResult redrive = punctual("dlq", "redrive", "--data-dir", data.toString(),
                    "--sfn-endpoint", runtime.endpoints().stepFunctions().toString());
            assertThat(redrive.exitCode()).as(redrive.out() + redrive.err()).isZero();
            assertThat(redrive.out()).contains(letters.size() + " redriven, 0 failed");

            Instant due = Instant.ofEpochSecond(ttl);
            time.advanceTo(due.minusMillis(1));
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), TABLE)).as("every item, the last millisecond before its TTL on"
                    + " the runtime's clock").containsExactlyInAnyOrderElementsOf(items.keySet());
            time.advanceTo(due);
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), TABLE)).as("items left at their TTL, once the runtime settled").isEmpty();
            List<FaultFixtures.Observed> executions = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE);
            assertThat(executions).as("executions still running").noneMatch(e -> "RUNNING".equals(e.status()));
            Map<String, List<FaultFixtures.Observed>> expired = FaultFixtures.expiredByItem(executions);
            assertThat(expired.keySet()).containsExactlyInAnyOrderElementsOf(items.keySet());
            expired.values().forEach(deletes -> {
                assertThat(deletes).hasSize(1);
                assertThat(deletes.get(0).deletedAt()).isAfterOrEqualTo(due);
            });
        }
        assertThat(punctual("dlq", "list", "--data-dir", data.toString()).out()).contains(letters.size() + " dead letter(s), 0 not redriven");
    }
}
