package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.quotas.QuotaSettings;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.PacedTimer;
import dev.punctual.tests.support.RuntimeProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * The real handler on the real embedded runtime with Step Functions' quotas enforced: throttled
 * StartExecution and StopExecution calls are retried within the invocation, so nothing is lost,
 * nothing expires early, nothing is scheduled twice and nothing reaches the dead-letter queue.
 *
 * <p>Each test has its own runtime and mostly waits (on refills and the SDK's retry pauses): they run side by side.
 */
@Execution(ExecutionMode.CONCURRENT)
class ThrottledQuotasTest {

    @Test
    void sixtyItemsInOneBatch_atFiveStartsASecond_areEachScheduledOnce_noneEarly_noneLost_noneDeadLettered() {
        String table = "throttled-starts";
        int items = 60;
        QuotaSettings quotas = QuotaSettings.awsDefaults().withOverride("start-execution-rate=5")
                .withOverride("start-execution-burst=5");
        // A batch of 60 needs 11 s of refill, far more than the SDK's own three tries (about 1.5 s of
        // pauses), and one retry only: the event source mapping counts every failed invocation, so the
        // handler's backoff within its invocation, not the mapping's retries, has to absorb the
        // throttling. At five a second the handler's concurrent calls outrun the bucket on any machine,
        // however busy: most calls exhaust the SDK's tries, and without the handler's backoff the
        // records would reach the dead-letter queue.
        MappingSettings mapping = MappingSettings.builder().batchSize(items).maximumBatchingWindowInSeconds(1)
                .maximumRetryAttempts(1).build();
        // The runtime's clock keeps the wall clock's pace while the items are scheduled, because the
        // SDK's retry pauses are real time and weigh against the bucket's refill on the runtime's clock;
        // once all are scheduled, only the engine's Waits are left, and the test skips to the TTLs.
        // Cancellation is off: Punctual's own REMOVE records carry DynamoDB Local's real timestamps, ten
        // minutes before the TTLs by this clock, and no test here moves or deletes an item.
        PacedTimer time = PacedTimer.startingNow();
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withQuotas(quotas)
                .withMapping(mapping).withTimer(time.timer()).withCancelStale(false));
             SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            watch(runtime, table);
            long ttl = time.now().plus(Duration.ofMinutes(10)).getEpochSecond();
            Map<String, Long> written = new LinkedHashMap<>();
            for (int i = 0; i < items; i++) {
                written.put(String.format("s-%04d", i), ttl + i % 5);
            }
            // Written while the mapping is paused, the items reach the handler as one batch.
            runtime.streamPoller().setEnabled(false);
            FaultFixtures.batchWrite(runtime.dynamoDb(), table, written);
            runtime.streamPoller().setEnabled(true);

            time.await("every item scheduled", Duration.ofSeconds(45),
                    () -> runtime.stepFunctionsEngine().openExecutions() == items);
            assertThat(runtime.observations().throttled().startExecution()).as("StartExecution was throttled").isPositive();
            assertThat(time.now()).as("every item scheduled before the first TTL").isBefore(Instant.ofEpochSecond(ttl));
            time.skipTo(Instant.ofEpochSecond(ttl + 5));
            time.await("every item expired", Duration.ofSeconds(60), () -> FaultFixtures.ids(runtime.dynamoDb(), table).isEmpty());
            time.await("every execution closed", Duration.ofSeconds(20), () -> runtime.stepFunctionsEngine().openExecutions() == 0);

            List<FaultFixtures.Observed> executions = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), table);
            Map<String, Long> perItem = executions.stream()
                    .collect(Collectors.groupingBy(FaultFixtures.Observed::itemId, Collectors.counting()));
            assertThat(perItem).as("one execution per item").hasSize(items).allSatisfy((id, count) -> assertThat(count).isEqualTo(1));
            assertThat(executions).allSatisfy(e -> {
                assertThat(e.outcome()).isEqualTo(ExpiryWorkflow.OUTCOME_EXPIRED);
                assertThat(e.deletedAt()).as("never early").isAfterOrEqualTo(Instant.ofEpochSecond(e.ttl()));
            });
            assertThat(runtime.streamPoller().deadLetters().list()).as("nothing dead-lettered").isEmpty();
        }
    }

    @Test
    void staleExecutions_whoseStopIsThrottled_stillCannotDelete_andAreStoppedLaterOrEndSuperseded() {
        String table = "throttled-stops";
        // One StopExecution at once, then one every 4 s: of the three stale executions, the later ones
        // are stopped only after backoff, or wake at their old TTL first and find the TTL changed.
        QuotaSettings quotas = QuotaSettings.awsDefaults().withOverride("stop-execution-burst=1")
                .withOverride("stop-execution-rate=0.25");
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withQuotas(quotas));
             SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            watch(runtime, table);
            long oldTtl = Instant.now().plusSeconds(6).getEpochSecond();
            // Past the check a second after the old TTL; the second and third stops, 4 and 8 s after the
            // move, still fall around the old TTL. A new execution that starts only after its TTL (its
            // stop came late) deletes at once, still not before the TTL.
            long newTtl = oldTtl + 8;
            Map<String, Long> first = new LinkedHashMap<>();
            Map<String, Long> moved = new LinkedHashMap<>();
            for (String id : List.of("m-1", "m-2", "m-3")) {
                first.put(id, oldTtl);
                moved.put(id, newTtl);
            }
            FaultFixtures.batchWrite(runtime.dynamoDb(), table, first);
            Await.untilProgressing("the first executions running", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> runtime.stepFunctionsEngine().openExecutions() == 3);
            FaultFixtures.batchWrite(runtime.dynamoDb(), table, moved);

            Await.until("the old TTL passed", Duration.ofSeconds(10), () -> Instant.now().getEpochSecond() > oldTtl + 1);
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), table)).as("nothing deleted at the old TTL")
                    .containsExactlyInAnyOrder("m-1", "m-2", "m-3");
            Await.untilProgressing("every item expired at its new TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> FaultFixtures.ids(runtime.dynamoDb(), table).isEmpty());
            Await.untilProgressing("every execution closed", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> runtime.stepFunctionsEngine().openExecutions() == 0);

            assertThat(runtime.observations().throttled().stopExecution()).as("StopExecution was throttled").isPositive();
            List<FaultFixtures.Observed> executions = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), table);
            Map<Long, List<FaultFixtures.Observed>> byTtl = new HashMap<>(executions.stream()
                    .collect(Collectors.groupingBy(FaultFixtures.Observed::ttl)));
            assertThat(byTtl.get(oldTtl)).hasSize(3).allSatisfy(stale -> assertThat(stale.status().equals("ABORTED")
                    || ExpiryWorkflow.OUTCOME_SUPERSEDED.equals(stale.outcome()))
                    .as("%s stopped, or ended Superseded without deleting (status %s, outcome %s)", stale.itemId(),
                            stale.status(), stale.outcome()).isTrue());
            assertThat(byTtl.get(newTtl)).hasSize(3).allSatisfy(current -> {
                assertThat(current.outcome()).isEqualTo(ExpiryWorkflow.OUTCOME_EXPIRED);
                assertThat(current.deletedAt()).isAfterOrEqualTo(Instant.ofEpochSecond(newTtl));
            });
            assertThat(runtime.streamPoller().deadLetters().list()).isEmpty();
        }
    }

    private static void watch(LocalRuntime runtime, String table) {
        FaultFixtures.createTable(runtime.dynamoDb(), table, true);
        Await.until("table watched", Duration.ofSeconds(20), () -> {
            runtime.streamPoller().discoverTables();
            return runtime.streamPoller().watchedTables().stream().anyMatch(t -> t.tableName().equals(table));
        });
    }
}
