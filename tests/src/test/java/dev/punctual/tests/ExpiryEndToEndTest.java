package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stream.StreamRecordConverter;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import dev.punctual.testing.TestLambdaContext;
import dev.punctual.tests.support.ExpiryExecutions;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.RuntimeProgress;
import dev.punctual.tests.support.SharedRuntime;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Punctual end to end on the real embedded runtime: items written with the AWS SDK to DynamoDB
 * Local, their stream records read by the poller and handed to the real handler, executions run by
 * the engine behind the Step Functions API, deletes made by the state machine. Each test has its own
 * table; TTLs lie a few seconds ahead, so the tests run on the real clock, and wait on the runtime's progress
 * ({@link RuntimeProgress}), never for a fixed time.
 * Real time is the point here: whether a REMOVE was the application's or Punctual's own is read from
 * DynamoDB Local's stream timestamps. The tests run side by side, as an application's items share one
 * stream mapping, so the class takes about as long as its longest test.
 *
 * <p>The runtime stops DynamoDB Local's own TTL deletion job, so every item gone after its TTL was
 * deleted by Punctual and the tests say so exactly.
 */
@ExtendWith(SharedRuntime.class)
@Execution(ExecutionMode.CONCURRENT)
class ExpiryEndToEndTest {

    private static LocalRuntime runtime;
    private static ExpiryExecutions executions;
    private static DynamoDbStreamsClient streams;

    @BeforeAll
    static void connect(LocalRuntime shared) {
        runtime = shared;
        executions = new ExpiryExecutions(shared);
        streams = LocalDynamoDbClients.streams(shared.endpoints().dynamoDb());
    }

    @AfterAll
    static void disconnect() {
        streams.close();
    }

    @Test
    void itemIsDeletedAtItsTtlAndNotBefore() {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-insert");
        long ttl = secondsFromNow(3);
        Instant due = Instant.ofEpochSecond(ttl);

        table.putWithTtl("a", ttl);

        String arn = executions.arnOf(table, "a", ttl);
        assertThat(executions.awaitStarted(arn).startDate()).isBefore(due);
        Await.holdsUntil("item present at every read before its TTL", due, () -> table.contains("a"));
        Await.untilProgressing("item deleted after its TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertExpiredAtOrAfter(arn, due);
    }

    @Test
    void ttlMovedLater_isNotDeletedAtTheOldTtl_butAtTheNewOne() {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-later");
        long oldTtl = secondsFromNow(4);
        long newTtl = oldTtl + 3;
        table.putWithTtl("a", oldTtl);
        String oldArn = executions.arnOf(table, "a", oldTtl);
        executions.awaitStarted(oldArn);

        table.updateTtl("a", newTtl);

        ExecutionDescription old = executions.awaitClosed(oldArn);
        assertThat(old.status()).as("execution for the old TTL, with cancellation on").isEqualTo(ExecutionStatus.ABORTED);
        Instant newDue = Instant.ofEpochSecond(newTtl);
        Await.holdsUntil("item present past its old TTL until its new TTL", newDue, () -> table.contains("a"));
        Await.untilProgressing("item deleted after its new TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertExpiredAtOrAfter(executions.arnOf(table, "a", newTtl), newDue);
    }

    @Test
    void ttlMovedEarlier_isDeletedAtTheNewTtl() {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-earlier");
        long oldTtl = secondsFromNow(10);
        table.putWithTtl("a", oldTtl);
        String oldArn = executions.arnOf(table, "a", oldTtl);
        executions.awaitStarted(oldArn);

        long newTtl = secondsFromNow(2);
        table.updateTtl("a", newTtl);

        Instant newDue = Instant.ofEpochSecond(newTtl);
        Await.holdsUntil("item present until its new TTL", newDue, () -> table.contains("a"));
        Await.untilProgressing("item deleted after its new TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertThat(Instant.now()).as("deleted before the old TTL").isBefore(Instant.ofEpochSecond(oldTtl));
        assertExpiredAtOrAfter(executions.arnOf(table, "a", newTtl), newDue);
        assertThat(executions.awaitClosed(oldArn).status()).as("execution for the old TTL")
                .isEqualTo(ExecutionStatus.ABORTED);
    }

    @Test
    void ttlRemoved_isNeverDeleted_andItsExecutionIsStopped() {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-removed");
        long ttl = secondsFromNow(4);
        table.putWithTtl("a", ttl);
        String arn = executions.arnOf(table, "a", ttl);
        executions.awaitStarted(arn);

        table.removeTtl("a");

        assertThat(executions.awaitClosed(arn).status()).isEqualTo(ExecutionStatus.ABORTED);
        Await.holdsUntil("item present well past its former TTL", Instant.ofEpochSecond(ttl).plusMillis(1500),
                () -> table.contains("a"));
        assertThat(table.get("a").orElseThrow()).doesNotContainKey(ExpiryTable.TTL);
        assertThat(executions.forTable(table.name())).extracting(ExecutionDescription::executionArn).containsExactly(arn);
    }

    @Test
    void ttlsNativeTtlIgnores_areNeverDeleted_andStartNoExecution() {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-invalid");
        long soon = secondsFromNow(2);
        long sixYearsAgo = Instant.now().atOffset(ZoneOffset.UTC).minusYears(6).toEpochSecond();
        table.put("string", AttributeValue.fromS(Long.toString(soon)));
        table.put("millis", AttributeValue.fromN(Long.toString(soon * 1000)));
        table.put("ancient", AttributeValue.fromN(Long.toString(sixYearsAgo)));
        // Written last on the same stream shard: once it has expired, the records before it were handled.
        table.putWithTtl("valid", soon);

        String validArn = executions.arnOf(table, "valid", soon);
        executions.awaitStarted(validArn);
        Await.holdsUntil("items with TTLs native TTL ignores still present past the valid item's TTL",
                Instant.ofEpochSecond(soon).plusSeconds(1),
                () -> table.contains("string") && table.contains("millis") && table.contains("ancient"));
        assertThat(table.contains("valid")).as("the valid item, written after them, expired").isFalse();
        assertThat(executions.forTable(table.name())).extracting(ExecutionDescription::executionArn)
                .containsExactly(validArn);
    }

    @Test
    void ttlInThePast_isDeletedAtOnce() {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-past");
        long ttl = secondsFromNow(-60);
        Instant written = Instant.now();

        table.putWithTtl("a", ttl);

        Await.untilProgressing("item with a past TTL deleted", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        String arn = executions.arnOf(table, "a", ttl);
        ExecutionDescription execution = executions.awaitClosed(arn);
        // Punctual's delete ran at once: its task was scheduled within seconds of the write.
        assertThat(ExpiryExecutions.outcome(execution)).isEqualTo(ExpiryWorkflow.OUTCOME_EXPIRED);
        assertThat(executions.history(arn)).filteredOn(e -> e.type().equals("TaskScheduled")).hasSize(1)
                .allSatisfy(e -> assertThat(e.timestamp()).isBetween(written, written.plusSeconds(3)));
    }

    @Test
    void duplicateStreamDelivery_startsOneExecution_andDeletesOnce() throws Exception {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-dup");
        long ttl = secondsFromNow(4);
        Instant due = Instant.ofEpochSecond(ttl);
        table.putWithTtl("a", ttl);
        String arn = executions.arnOf(table, "a", ttl);
        executions.awaitStarted(arn);

        // The poller delivered the INSERT once; deliver the very same record twice more, as a retried batch would.
        DynamodbEvent event = new DynamodbEvent();
        event.setRecords(List.of(StreamRecordConverter.toLambda(insertRecord(table, "a"), table.watched().streamArn(),
                LocalAccount.REGION)));
        List<StreamsEventResponse> responses = new ArrayList<>();
        try (ExpiryStreamHandler handler = new ExpiryStreamHandler(
                    FunctionParts.builder(runtime.mode().handlerEnvironment(table.watched())).build())) {
            responses.add(handler.handleRequest(event, TestLambdaContext.invocation()));
            responses.add(handler.handleRequest(event, TestLambdaContext.invocation()));
        }

        assertThat(responses).allSatisfy(response -> assertThat(response.getBatchItemFailures()).isEmpty());
        Await.holdsUntil("item present until its TTL", due, () -> table.contains("a"));
        Await.untilProgressing("item deleted after its TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertExpiredAtOrAfter(arn, due);
        List<ExecutionDescription> all = executions.forTable(table.name());
        assertThat(all).extracting(ExecutionDescription::executionArn).containsExactly(arn);
        assertThat(executions.history(arn)).filteredOn(e -> e.type().equals("TaskSucceeded")).hasSize(1);
    }

    @Test
    void itemDeletedBeforeItsTtl_stopsItsExecution_andARecreatedItemExpiresAtItsNewTtl() {
        ExpiryTable table = ExpiryTable.create(runtime, "e2e-deleted");
        // Further out than the handler's expiry-delete window (stream times are rounded down to the minute):
        // a delete this early is the application's, so the execution is stopped.
        long ttl = secondsFromNow(180);
        table.putWithTtl("a", ttl);
        String arn = executions.arnOf(table, "a", ttl);
        executions.awaitStarted(arn);

        table.delete("a");

        assertThat(executions.awaitClosed(arn).status()).isEqualTo(ExecutionStatus.ABORTED);
        long newTtl = secondsFromNow(3);
        Instant newDue = Instant.ofEpochSecond(newTtl);
        table.putWithTtl("a", newTtl);
        String newArn = executions.arnOf(table, "a", newTtl);
        executions.awaitStarted(newArn);
        Await.holdsUntil("recreated item present until its new TTL", newDue, () -> table.contains("a"));
        Await.untilProgressing("recreated item deleted after its new TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertExpiredAtOrAfter(newArn, newDue);
    }

    private static void assertExpiredAtOrAfter(String arn, Instant due) {
        ExecutionDescription execution = executions.awaitClosed(arn);
        assertThat(ExpiryExecutions.outcome(execution)).isEqualTo(ExpiryWorkflow.OUTCOME_EXPIRED);
        Optional<Instant> deleted = executions.deleteSucceededAt(arn);
        assertThat(deleted).as("TaskSucceeded of the conditional delete").isPresent();
        assertThat(deleted.get()).as("delete at or after the TTL").isAfterOrEqualTo(due);
    }

    /** The INSERT record of item {@code id}, read from the table's stream like the poller reads it. */
    private static Record insertRecord(ExpiryTable table, String id) {
        String streamArn = table.watched().streamArn();
        for (Shard shard : streams.describeStream(r -> r.streamArn(streamArn)).streamDescription().shards()) {
            String iterator = streams.getShardIterator(r -> r.streamArn(streamArn).shardId(shard.shardId())
                    .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
            while (iterator != null) {
                String current = iterator;
                var page = streams.getRecords(r -> r.shardIterator(current));
                for (Record record : page.records()) {
                    if (record.eventNameAsString().equals("INSERT")
                            && id.equals(record.dynamodb().keys().get(ExpiryTable.KEY).s())) {
                        return record;
                    }
                }
                // An open shard always hands out a next iterator; stop at the first empty page.
                iterator = page.records().isEmpty() ? null : page.nextShardIterator();
            }
        }
        throw new AssertionError("no INSERT record for item " + id + " in the stream of " + table.name());
    }

    private static long secondsFromNow(long seconds) {
        return Instant.now().getEpochSecond() + seconds;
    }
}
