package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.RuntimeProgress;
import dev.punctual.testing.TestLambdaContext;
import dev.punctual.tests.support.TableStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * At-least-once delivery: the real handler gets the same batch of real stream records twice, then a
 * reordered copy, then once more after the items expired. One execution per (item, TTL) deletes each
 * item exactly once.
 */
class DuplicateDeliveryTest {

    private static final String TABLE = "dup-orders";
    private static final int ITEMS = 20;

    @Test
    void duplicateAndReorderedBatches_startOneExecutionPerItemAndDeleteEachOnce() throws Exception {
        // The runtime watches another table only, so this test alone delivers this table's records.
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withTables(Set.of("not-this-one")));
             DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(runtime.endpoints().dynamoDb());
             SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            FaultFixtures.createTable(runtime.dynamoDb(), TABLE, true);
            long ttl = Instant.now().plusSeconds(4).getEpochSecond();
            Map<String, Long> items = new LinkedHashMap<>();
            for (int i = 0; i < ITEMS; i++) {
                items.put("item-" + i, ttl);
            }
            FaultFixtures.batchWrite(runtime.dynamoDb(), TABLE, items);
            String streamArn = runtime.dynamoDb().describeTable(r -> r.tableName(TABLE)).table().latestStreamArn();
            List<DynamodbStreamRecord> batch = TableStream.read(streams, streamArn, ITEMS);

            try (ExpiryStreamHandler handler = new ExpiryStreamHandler(
                    FunctionParts.builder(runtime.mode().handlerEnvironment(new WatchedTable(TABLE, streamArn, FaultFixtures.TTL))).build())) {
                List<DynamodbStreamRecord> reordered = new ArrayList<>(batch);
                Collections.reverse(reordered);
                assertThat(handler.handleRequest(TableStream.event(batch), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
                assertThat(handler.handleRequest(TableStream.event(batch), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
                assertThat(handler.handleRequest(TableStream.event(reordered), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();

                // One execution per item. On a loaded machine an item may already have expired before the
                // third delivery: its record then meets a closed holder and may start a restart, which is
                // checked below to have started only after that holder closed.
                List<FaultFixtures.Observed> started = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE);
                assertThat(firstExecutions(started)).extracting(FaultFixtures.Observed::itemId).doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(items.keySet());

                Await.untilProgressing("every item expired", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> FaultFixtures.ids(runtime.dynamoDb(), TABLE).isEmpty());

                // A late duplicate, after the deletes: it may start a restart, which finds the item gone.
                assertThat(handler.handleRequest(TableStream.event(reordered), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
            }
            Await.untilProgressing("every execution closed", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                    () -> FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE).stream().noneMatch(e -> "RUNNING".equals(e.status())));
            List<FaultFixtures.Observed> all = FaultFixtures.executions(sfn, LocalDefaults.stateMachineArn(), TABLE);
            Map<String, List<FaultFixtures.Observed>> expired = FaultFixtures.expiredByItem(all);
            assertThat(expired).hasSize(ITEMS);
            expired.forEach((id, executions) -> {
                assertThat(executions).as("deletes of %s", id).hasSize(1);
                assertThat(executions.get(0).deletedAt()).isAfterOrEqualTo(Instant.ofEpochSecond(ttl));
            });
            assertThat(all).allSatisfy(e -> assertThat(e.outcome()).isIn(ExpiryWorkflow.OUTCOME_EXPIRED, ExpiryWorkflow.OUTCOME_SUPERSEDED));
            assertThat(firstExecutions(all)).hasSize(ITEMS);
            Map<String, FaultFixtures.Observed> firstByItem = new LinkedHashMap<>();
            firstExecutions(all).forEach(e -> firstByItem.put(e.itemId(), e));
            all.stream().filter(e -> !firstByItem.containsValue(e)).forEach(restart -> {
                FaultFixtures.Observed holder = firstByItem.get(restart.itemId());
                assertThat(restart.name()).as("a second execution of %s", restart.itemId()).startsWith(holder.name() + "-r");
                assertThat(restart.startDate()).as("restart of %s after its holder closed", restart.itemId())
                        .isAfterOrEqualTo(holder.stopDate());
                assertThat(restart.outcome()).isEqualTo(ExpiryWorkflow.OUTCOME_SUPERSEDED);
            });
        }
    }

    /** The executions under an item's own name, without restarts ({@code -r...}). */
    private static List<FaultFixtures.Observed> firstExecutions(List<FaultFixtures.Observed> executions) {
        return executions.stream().filter(e -> !e.name().matches(".*-r[a-z2-7]{8}$")).toList();
    }
}
