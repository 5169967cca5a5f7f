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

/**
 * {@code punctual backfill} starts the runtime's backfill workflow and follows it to its end: items
 * written before Punctual watched the table are scheduled once, however often it runs.
 */
class BackfillCommandTest {

    private static final String TABLE = "legacy-orders";
    private static final int ITEMS = 40;

    private static String[] backfill(LocalRuntime runtime, String endpointFlag, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("backfill", "--table", TABLE, endpointFlag,
                runtime.dynamoDbEndpoint().toString(), "--sfn-endpoint", runtime.stepFunctionsEndpoint().toString(), "--no-progress"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void backfill_schedulesExistingItemsOnce_andTheyExpire() throws Exception {
        // The runtime never watches this table: only the backfill can schedule its items.
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withTables(Set.of("some-other-table")));
             SfnClient sfn = LocalClients.stepFunctions(runtime.stepFunctionsEndpoint())) {
            FaultFixtures.createTable(runtime.dynamoDb(), TABLE, false);
            long ttl = Instant.now().plusSeconds(25).getEpochSecond();
            Map<String, Long> items = new LinkedHashMap<>();
            for (int i = 0; i < ITEMS; i++) {
                items.put("old-" + i, ttl);
            }
            FaultFixtures.batchWrite(runtime.dynamoDb(), TABLE, items);
            runtime.dynamoDb().putItem(r -> r.tableName(TABLE).item(Map.of("id", AttributeValue.fromS("no-ttl"))));
            runtime.dynamoDb().putItem(r -> r.tableName(TABLE).item(Map.of("id", AttributeValue.fromS("text-ttl"),
                    FaultFixtures.TTL, AttributeValue.fromS("tomorrow"))));
            FaultFixtures.enableTtl(runtime.dynamoDb(), TABLE);

            FaultFixtures.CliResult first = punctual(backfill(runtime, "--dynamodb-endpoint", "--segments", "3"));
            assertThat(first.exitCode()).as(first.out() + first.err()).isZero();
            assertThat(first.out()).contains("per-item mode, 3 segments, TTL attribute " + FaultFixtures.TTL)
                    .containsPattern("Segments done\\s+3 of 3").containsPattern("Scanned\\s+" + (ITEMS + 2))
                    .containsPattern("Scheduled\\s+" + ITEMS).containsPattern("Skipped\\s+2").contains("Backfilled: ");
            assertThat(FaultFixtures.executions(sfn, runtime.stateMachineArn(), TABLE)).hasSize(ITEMS);

            // The old spelling of the endpoint still works, and says it is deprecated.
            FaultFixtures.CliResult second = punctual(backfill(runtime, "--endpoint"));
            assertThat(second.exitCode()).as(second.out() + second.err()).isZero();
            assertThat(second.err()).contains("--endpoint is deprecated; use --dynamodb-endpoint");
            assertThat(second.out()).containsPattern("Scheduled\\s+" + ITEMS);
            assertThat(FaultFixtures.executions(sfn, runtime.stateMachineArn(), TABLE)).as("a second run starts nothing new").hasSize(ITEMS);

            Await.until("backfilled items expired", Duration.ofSeconds(60),
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
