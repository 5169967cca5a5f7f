package dev.punctual.tests.faults;

import static dev.punctual.tests.faults.FaultFixtures.punctual;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sfn.SfnClient;

/** {@code punctual backfill} schedules items written before Punctual watched the table, once, however often it runs. */
class BackfillCommandTest {

    private static final String TABLE = "legacy-orders";
    private static final int ITEMS = 40;

    @Test
    void backfill_schedulesExistingItemsOnce_andTheyExpire() throws Exception {
        // The runtime never watches this table: only the backfill can schedule its items.
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withTables(Set.of("some-other-table")));
             SfnClient sfn = LocalClients.stepFunctions(runtime.stepFunctionsEndpoint())) {
            FaultFixtures.createTable(runtime.dynamoDb(), TABLE, false);
            long ttl = Instant.now().plusSeconds(6).getEpochSecond();
            Map<String, Long> items = new LinkedHashMap<>();
            for (int i = 0; i < ITEMS; i++) {
                items.put("old-" + i, ttl);
            }
            FaultFixtures.batchWrite(runtime.dynamoDb(), TABLE, items);
            runtime.dynamoDb().putItem(r -> r.tableName(TABLE).item(Map.of("id", AttributeValue.fromS("no-ttl"))));
            runtime.dynamoDb().putItem(r -> r.tableName(TABLE).item(Map.of("id", AttributeValue.fromS("text-ttl"),
                    FaultFixtures.TTL, AttributeValue.fromS("tomorrow"))));
            FaultFixtures.enableTtl(runtime.dynamoDb(), TABLE);

            String[] args = {"backfill", "--table", TABLE, "--endpoint", runtime.dynamoDbEndpoint().toString(),
                "--sfn-endpoint", runtime.stepFunctionsEndpoint().toString(), "--segments", "3", "--no-progress"};
            FaultFixtures.CliResult first = punctual(args);
            assertThat(first.exitCode()).as(first.out() + first.err()).isZero();
            assertThat(first.out()).contains("TTL attribute " + FaultFixtures.TTL)
                    .containsPattern("Scanned\\s+" + (ITEMS + 2)).containsPattern("Scheduled\\s+" + ITEMS)
                    .containsPattern("NO_TTL\\s+1").containsPattern("TTL_NOT_A_NUMBER\\s+1").containsPattern("Failed\\s+0");
            assertThat(runtime.stepFunctionsEngine().openExecutions()).isEqualTo(ITEMS);

            FaultFixtures.CliResult second = punctual(args);
            assertThat(second.exitCode()).as(second.out() + second.err()).isZero();
            assertThat(FaultFixtures.executions(sfn, runtime.stateMachineArn(), TABLE)).as("a second run starts nothing new").hasSize(ITEMS);

            Await.until("backfilled items expired", Duration.ofSeconds(30),
                    () -> FaultFixtures.ids(runtime.dynamoDb(), TABLE).equals(Set.of("no-ttl", "text-ttl")));
            Await.until("every execution closed", Duration.ofSeconds(10), () -> runtime.stepFunctionsEngine().openExecutions() == 0);
            Map<String, List<FaultFixtures.Observed>> expired =
                    FaultFixtures.expiredByItem(FaultFixtures.executions(sfn, runtime.stateMachineArn(), TABLE));
            assertThat(expired.keySet()).containsExactlyInAnyOrderElementsOf(items.keySet());
            expired.values().forEach(deletes -> assertThat(deletes.get(0).deletedAt()).isAfterOrEqualTo(Instant.ofEpochSecond(ttl)));
        }
    }

    @Test
    void backfill_withoutTtlOnTheTable_saysWhatToDo() {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts())) {
            FaultFixtures.createTable(runtime.dynamoDb(), TABLE, false);
            FaultFixtures.CliResult result = punctual("backfill", "--table", TABLE, "--endpoint", runtime.dynamoDbEndpoint().toString(),
                    "--sfn-endpoint", runtime.stepFunctionsEndpoint().toString(), "--no-progress");
            assertThat(result.exitCode()).isNotZero();
            assertThat(result.err()).contains("has no TTL enabled").contains("--ttl-attribute");
        }
    }
}
