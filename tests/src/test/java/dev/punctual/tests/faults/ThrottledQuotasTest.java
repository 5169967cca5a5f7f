package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.quotas.QuotaSettings;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * The real handler on the real embedded runtime with Step Functions' quotas enforced: throttled
 * StartExecution and StopExecution calls are retried within the invocation, so nothing is lost,
 * nothing expires early, nothing is scheduled twice and nothing reaches the dead-letter queue.
 */
class ThrottledQuotasTest {

    @Test
    void twoThousandItems_atOneHundredStartsASecond_areEachScheduledOnce_noneEarly_noneLost_noneDeadLettered() {
        String table = "throttled-starts";
        int items = 2_000;
        QuotaSettings quotas = QuotaSettings.awsDefaults().withOverride("start-execution-rate=100")
                .withOverride("start-execution-burst=100");
        // Batches of 1,000 need 9-10 s of refill each, more than the SDK's own three tries, and one retry
        // only: the event source mapping counts every failed invocation, so the handler's backoff within
        // its invocation, not the mapping's retries, has to absorb the throttling.
        MappingSettings mapping = MappingSettings.builder().batchSize(1_000).maximumBatchingWindowInSeconds(1)
                .maximumRetryAttempts(1).build();
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withQuotas(quotas)
                .withMapping(mapping));
             SfnClient sfn = LocalClients.stepFunctions(runtime.stepFunctionsEndpoint())) {
            watch(runtime, table);
            // Far enough out that every start, throttled to 100 at once and then 100 a second, is in
            // place before the first TTL: an early or missed delete would then be Punctual's fault.
            long ttl = Instant.now().plusSeconds(50).getEpochSecond();
            Map<String, Long> written = new LinkedHashMap<>();
            for (int i = 0; i < items; i++) {
                written.put(String.format("s-%04d", i), ttl + i % 5);
            }
            FaultFixtures.batchWrite(runtime.dynamoDb(), table, written);

            Await.until("every item scheduled", Duration.ofSeconds(45),
                    () -> runtime.stepFunctionsEngine().openExecutions() == items);
            assertThat(runtime.throttled().startExecution()).as("StartExecution was throttled").isPositive();
            Await.until("every item expired", Duration.ofSeconds(120), () -> FaultFixtures.ids(runtime.dynamoDb(), table).isEmpty());
            Await.until("every execution closed", Duration.ofSeconds(20), () -> runtime.stepFunctionsEngine().openExecutions() == 0);

            List<FaultFixtures.Observed> executions = FaultFixtures.executions(sfn, runtime.stateMachineArn(), table);
            Map<String, Long> perItem = executions.stream()
                    .collect(Collectors.groupingBy(FaultFixtures.Observed::itemId, Collectors.counting()));
            assertThat(perItem).as("one execution per item").hasSize(items).allSatisfy((id, count) -> assertThat(count).isEqualTo(1));
            assertThat(executions).allSatisfy(e -> {
                assertThat(e.outcome()).isEqualTo(ExpiryWorkflow.OUTCOME_EXPIRED);
                assertThat(e.deletedAt()).as("never early").isAfterOrEqualTo(Instant.ofEpochSecond(e.ttl()));
            });
            assertThat(runtime.deadLetters().list()).as("nothing dead-lettered").isEmpty();
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
             SfnClient sfn = LocalClients.stepFunctions(runtime.stepFunctionsEndpoint())) {
            watch(runtime, table);
            long oldTtl = Instant.now().plusSeconds(6).getEpochSecond();
            long newTtl = oldTtl + 20;
            Map<String, Long> first = new LinkedHashMap<>();
            Map<String, Long> moved = new LinkedHashMap<>();
            for (String id : List.of("m-1", "m-2", "m-3")) {
                first.put(id, oldTtl);
                moved.put(id, newTtl);
            }
            FaultFixtures.batchWrite(runtime.dynamoDb(), table, first);
            Await.until("the first executions running", Duration.ofSeconds(5), () -> runtime.stepFunctionsEngine().openExecutions() == 3);
            FaultFixtures.batchWrite(runtime.dynamoDb(), table, moved);

            Await.until("the old TTL passed", Duration.ofSeconds(10), () -> Instant.now().getEpochSecond() > oldTtl + 1);
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), table)).as("nothing deleted at the old TTL")
                    .containsExactlyInAnyOrder("m-1", "m-2", "m-3");
            Await.until("every item expired at its new TTL", Duration.ofSeconds(40), () -> FaultFixtures.ids(runtime.dynamoDb(), table).isEmpty());
            Await.until("every execution closed", Duration.ofSeconds(20), () -> runtime.stepFunctionsEngine().openExecutions() == 0);

            assertThat(runtime.throttled().stopExecution()).as("StopExecution was throttled").isPositive();
            List<FaultFixtures.Observed> executions = FaultFixtures.executions(sfn, runtime.stateMachineArn(), table);
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
            assertThat(runtime.deadLetters().list()).isEmpty();
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
