package dev.punctual.tests.faults;

import static dev.punctual.tests.faults.FaultFixtures.punctual;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * {@code punctual backfill} starts the runtime's backfill workflow and follows it to its end: items
 * written before Punctual watched the table are scheduled once, however often it runs.
 *
 * <p>The runtime that expires them runs on a manual timer: the backfill function reads "now" from it,
 * and the executions it starts wait on it, so the TTLs an hour away are skipped to ({@link SkippedTime}):
 * the last millisecond before them finds every item there, the TTL none of the backfilled ones. The
 * command itself runs in this JVM on the wall clock, as a user's would (it follows the workflow every
 * 500 ms); while it runs, the runtime's time passes no faster than the wall clock's. The two tests of
 * the command's messages wait on no time and keep a runtime on the wall clock.
 */
class BackfillCommandTest {

    private static final String TABLE = "legacy-orders";
    private static final int ITEMS = 40;
    /** The TTLs' distance from the start, on the runtime's clock (and the wall clock's: native TTL never sees them due). */
    private static final Duration LEAD = Duration.ofHours(1);
    /** Wall time a backfill command may take before the test calls it hung. */
    private static final Duration COMMAND_HANG_GUARD = Duration.ofMinutes(2);

    private static String[] backfill(LocalRuntime runtime, String endpointFlag, String... more) {
        List<String> args = new ArrayList<>(List.of("backfill", "--table", TABLE, endpointFlag,
                runtime.endpoints().dynamoDb().toString(), "--sfn-endpoint", runtime.endpoints().stepFunctions().toString(), "--no-progress"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /**
     * Runs {@code punctual} with {@code args} on another thread while the runtime's time passes, at most at
     * the wall clock's pace: whatever the workflow waits for on the timer (a segment's rate limiter, a task's
     * retry) comes as it would in real time. The TTLs are an hour away, so nothing falls due meanwhile.
     */
    private static FaultFixtures.CliResult whileTimePasses(ManualTimer timer, String... args) throws Exception {
        ExecutorService command = Executors.newSingleThreadExecutor();
        try {
            Future<FaultFixtures.CliResult> result = command.submit(() -> punctual(args));
            Await.until(() -> "punctual " + String.join(" ", args) + " done, at " + timer.clock().instant(), COMMAND_HANG_GUARD,
                    () -> {
                        timer.advance(Await.POLL);
                        return result.isDone();
                    });
            return result.get();
        } finally {
            command.shutdownNow();
        }
    }

    @Test
    void backfill_schedulesExistingItemsOnce_andTheyExpire() throws Exception {
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        // The runtime never watches this table: only the backfill can schedule its items.
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withTables(Set.of("some-other-table"))
                .withTimer(timer));
             SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            SkippedTime time = SkippedTime.of(runtime);
            FaultFixtures.createTable(runtime.dynamoDb(), TABLE, false);
            long ttl = time.now().plus(LEAD).getEpochSecond();
            Map<String, Long> items = new LinkedHashMap<>();
            for (int i = 0; i < ITEMS; i++) {
                items.put("old-" + i, ttl);
            }
            FaultFixtures.batchWrite(runtime.dynamoDb(), TABLE, items);
            runtime.dynamoDb().putItem(r -> r.tableName(TABLE).item(Map.of("id", AttributeValue.fromS("no-ttl"))));
            runtime.dynamoDb().putItem(r -> r.tableName(TABLE).item(Map.of("id", AttributeValue.fromS("text-ttl"),
                    FaultFixtures.TTL, AttributeValue.fromS("tomorrow"))));
            FaultFixtures.enableTtl(runtime.dynamoDb(), TABLE);

            FaultFixtures.CliResult first = whileTimePasses(timer, backfill(runtime, "--dynamodb-endpoint", "--segments", "3"));
            assertThat(first.exitCode()).as(first.out() + first.err()).isZero();
            assertThat(first.out()).contains("per-item mode, 3 segments, TTL attribute " + FaultFixtures.TTL)
                    .containsPattern("Segments done\\s+3 of 3").containsPattern("Scanned\\s+" + (ITEMS + 2))
                    .containsPattern("Scheduled\\s+" + ITEMS).containsPattern("Skipped\\s+2").contains("Backfilled: ");
            assertThat(FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE)).hasSize(ITEMS);

            // The old spelling of the endpoint still works, and says it is deprecated.
            FaultFixtures.CliResult second = whileTimePasses(timer, backfill(runtime, "--endpoint"));
            assertThat(second.exitCode()).as(second.out() + second.err()).isZero();
            assertThat(second.err()).contains("--endpoint is deprecated; use --dynamodb-endpoint");
            assertThat(second.out()).containsPattern("Scheduled\\s+" + ITEMS);
            assertThat(FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE)).as("a second run starts nothing new").hasSize(ITEMS);

            Instant due = Instant.ofEpochSecond(ttl);
            time.advanceTo(due.minusMillis(1));
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), TABLE)).as("every item, the last millisecond before the TTL on"
                    + " the runtime's clock").hasSize(ITEMS + 2).containsAll(items.keySet());
            time.advanceTo(due);
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), TABLE)).as("what is left at the TTL, once the runtime settled")
                    .isEqualTo(Set.of("no-ttl", "text-ttl"));
            assertThat(runtime.stepFunctionsEngine().openExecutions()).as("executions still open").isZero();
            Map<String, List<FaultFixtures.Observed>> expired =
                    FaultFixtures.expiredByItem(FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE));
            assertThat(expired.keySet()).containsExactlyInAnyOrderElementsOf(items.keySet());
            expired.values().forEach(deletes -> {
                assertThat(deletes).hasSize(1);
                assertThat(deletes.get(0).deletedAt()).isAfterOrEqualTo(due);
            });
        }
    }

    @Test
    void backfill_withoutTtlOnTheTable_saysWhatToDo() {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts())) {
            FaultFixtures.createTable(runtime.dynamoDb(), TABLE, false);

            FaultFixtures.CliResult result = punctual(backfill(runtime, "--dynamodb-endpoint"));

            assertThat(result.exitCode()).isNotZero();
            assertThat(result.out()).contains("ended FAILED: dev.punctual.backfill.BackfillInputException")
                    .contains("has no TTL enabled").contains("ttlAttribute");
        }
    }

    @Test
    void backfill_withTheLaptopPathsProgressFile_saysWhereProgressLivesNow() {
        FaultFixtures.CliResult result = punctual("backfill", "--table", TABLE, "--progress-file", "p.json");

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.err()).contains("--progress-file is gone").contains("progress table");
    }
}
