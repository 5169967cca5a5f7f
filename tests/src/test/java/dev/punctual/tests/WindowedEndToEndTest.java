package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import dev.punctual.functions.DynamoDbScheduleIndex;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.cli.PunctualCommand;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stream.StreamRecordConverter;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.RuntimeProgress;
import dev.punctual.testing.TestLambdaContext;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Windowed mode end to end on the real embedded runtime: DynamoDB Local, its stream, the poller, the
 * real handler indexing items into the schedule index, bucket executions run by the engine, and the
 * real bucket function deleting each item. When each item was deleted comes from the runtime's
 * ledger of conditional deletes; the stream shows that no item was deleted twice. Each test has its
 * own table, whose buckets are its own, so the tests run side by side on the real clock: a few seconds
 * to each TTL, with the real stream's delay and a runner racing the handler, which skipped time does not
 * show. One test, on how a minute is split, has a runtime of its own on skipped time.
 */
@Execution(ExecutionMode.CONCURRENT)
class WindowedEndToEndTest {

    private static LocalRuntime runtime;
    private static DynamoDbStreamsClient streams;

    @BeforeAll
    static void start() {
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED));
        streams = LocalDynamoDbClients.streams(runtime.endpoints().dynamoDb());
    }

    @AfterAll
    static void stop() {
        streams.close();
        runtime.close();
    }

    private static ExpiryTable table(String prefix) {
        ExpiryTable table = ExpiryTable.create(runtime, prefix);
        runtime.observations().deletions().track(table.name());
        return table;
    }

    @Test
    void items_areDeletedAtTheirOwnSecond_notBefore_byTheirMinutesRunner() {
        ExpiryTable table = table("w-insert");
        // The minute's runner wakes 11 s before the first due second; the items must reach the index before it
        // begins for "its runner works both seconds" to be the promise. At 3 s out, under load (CI, load 13) the
        // handler wrote them while the runner's read of what comes next was in flight, and both went to
        // one-second fallbacks, as the seal protocol says they must.
        long ttl = secondsFromNow(20);
        table.putWithTtl("a", ttl);
        table.putWithTtl("b", ttl);
        table.putWithTtl("c", ttl + 1);

        Await.holdsUntil("a present at every read before its TTL", Instant.ofEpochSecond(ttl), () -> table.contains("a"));
        Await.untilProgressing("a and b deleted after their TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a") && !table.contains("b"));
        // Not "c still there once a and b are gone": a and b deleted a second late on a loaded machine would fail
        // it with nothing early. That c is not deleted in a and b's second is the ledger's check below, and
        // every item in its own second is OnItsSecondTest's, on the manual timer.
        Await.untilProgressing("c deleted after its TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("c"));

        assertDeletedAtOrAfter(table, "a", ttl);
        assertDeletedAtOrAfter(table, "c", ttl + 1);
        List<String> buckets = bucketExecutions(table);
        assertThat(buckets).as("one execution per minute, whose runner works both seconds").containsExactlyInAnyOrderElementsOf(
                new java.util.LinkedHashSet<>(List.of(Bucket.containing(table.name(), BucketLevel.MINUTE, ttl).executionName(),
                        Bucket.containing(table.name(), BucketLevel.MINUTE, ttl + 1).executionName())));
        assertDeletedOnce(table, List.of("a", "b", "c"));
    }

    /**
     * On a runtime of its own, on skipped time: what is checked is how the minute is planned and split, not
     * what real time does to it, and on the wall clock two items 12 s apart in one minute are up to a
     * minute's wait away (the rest of this minute is too short when a test starts late in it). Each item is
     * deleted inside its own second, the later one still present after the earlier one's.
     */
    @Test
    void itemsOfAMinuteWrittenOutOfOrder_theEarlierGoesToTheMinutesEarlyPart_eachDeletedInItsSecond() {
        // A day ahead of the wall clock (a whole minute's 10th second before the end of one), so DynamoDB
        // Local's wall clock reaches no TTL here while the test runs, even if its own TTL job ran (the runtime
        // stops it at start); the wall clock would otherwise run ahead while this clock stands still.
        long minute = (Instant.now().plus(Duration.ofDays(1)).getEpochSecond() / 60 + 1) * 60;
        ManualTimer timer = ManualTimer.startingAt(Instant.ofEpochSecond(minute - 10));
        try (LocalRuntime own = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED).withTimer(timer));
                DynamoDbStreamsClient ownStreams = LocalDynamoDbClients.streams(own.endpoints().dynamoDb())) {
            SkippedTime time = SkippedTime.of(own);
            ExpiryTable table = ExpiryTable.create(own, "w-early");
            own.observations().deletions().track(table.name());
            long early = minute + 5;
            long late = early + 12;
            String bucket = Bucket.containing(table.name(), BucketLevel.MINUTE, late).executionName();
            // The later item first: the minute is planned for it, and its runner wakes after the earlier one's second.
            table.putWithTtl("late", late);
            time.settle();
            assertThat(bucketExecutions(own, table)).as("the minute planned for the later item").containsExactly(bucket);
            table.putWithTtl("early", early);
            time.settle();
            assertThat(bucketExecutions(own, table)).as("the minute's early part started")
                    .containsExactlyInAnyOrder(bucket, bucket + "-e");
            List<String> pending = pendingOutput(own, table).lines().filter(line -> line.contains(table.name())).toList();
            assertThat(pending).as("pending: each item with the runner that holds it").hasSize(2);
            assertThat(pending.get(0)).contains("\"S\":\"early").contains(bucket + "-e");
            assertThat(pending.get(1)).contains("\"S\":\"late").contains(bucket).doesNotContain(bucket + "-e");

            time.advanceTo(Instant.ofEpochSecond(early).minusNanos(1));
            assertThat(table.contains("early")).as("early present until its TTL").isTrue();
            time.advanceTo(Instant.ofEpochSecond(early + 1).minusNanos(1));
            assertThat(table.contains("early")).as("early deleted while the clock reads its second").isFalse();
            time.advanceTo(Instant.ofEpochSecond(late).minusNanos(1));
            assertThat(table.contains("late")).as("late present until its TTL").isTrue();
            time.advanceTo(Instant.ofEpochSecond(late + 1).minusNanos(1));
            assertThat(table.contains("late")).as("late deleted while the clock reads its second").isFalse();

            assertDeletedInItsSecond(own, table, "early", early);
            assertDeletedInItsSecond(own, table, "late", late);
            assertDeletedOnce(ownStreams, table, List.of("early", "late"));
            assertThat(bucketExecutions(own, table)).as("the minute and its early part, no one-second bucket")
                    .containsExactlyInAnyOrder(bucket, bucket + "-e");
        }
    }

    @Test
    void ttlMovedLater_survivesTheOldTtl_andGoesAtTheNewOne() {
        ExpiryTable table = table("w-later");
        long oldTtl = secondsFromNow(4);
        long newTtl = oldTtl + 3;
        table.putWithTtl("a", oldTtl);
        awaitIndexed(table, oldTtl);

        table.updateTtl("a", newTtl);

        Await.holdsUntil("present past its old TTL until its new one", Instant.ofEpochSecond(newTtl), () -> table.contains("a"));
        Await.untilProgressing("deleted after its new TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertDeletedAtOrAfter(table, "a", newTtl);
    }

    @Test
    void ttlMovedEarlier_goesAtTheNewTtl() {
        ExpiryTable table = table("w-earlier");
        long oldTtl = secondsFromNow(30);
        table.putWithTtl("a", oldTtl);
        awaitIndexed(table, oldTtl);
        long newTtl = secondsFromNow(3);

        table.updateTtl("a", newTtl);

        Await.holdsUntil("present until its new TTL", Instant.ofEpochSecond(newTtl), () -> table.contains("a"));
        Await.untilProgressing("deleted after its new TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertDeletedAtOrAfter(table, "a", newTtl);
    }

    @Test
    void ttlRemoved_orItemDeletedAndRecreatedWithAnotherTtl_noStaleEntryDeletesIt() {
        ExpiryTable table = table("w-stale");
        long ttl = secondsFromNow(3);
        table.putWithTtl("kept", ttl);
        table.putWithTtl("recreated", ttl);
        awaitIndexed(table, ttl);

        table.removeTtl("kept");
        table.delete("recreated");
        table.putWithTtl("recreated", ttl + 4);

        Await.holdsUntil("both present past the old TTL", Instant.ofEpochSecond(ttl + 4),
                () -> table.contains("kept") && table.contains("recreated"));
        Await.untilProgressing("the recreated item deleted at its new TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("recreated"));
        assertDeletedAtOrAfter(table, "recreated", ttl + 4);
        assertThat(table.contains("kept")).as("an item whose TTL was removed stays").isTrue();
    }

    @Test
    void itemRecreatedWithTheSameTtl_afterItsExpiry_isDeletedAgain() {
        ExpiryTable table = table("w-again");
        long ttl = secondsFromNow(2);
        table.putWithTtl("a", ttl);
        Await.untilProgressing("first incarnation deleted", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));

        table.putWithTtl("a", ttl);

        Await.untilProgressing("recreated with a past TTL: deleted at once", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
    }

    @Test
    void ttlInThePast_isDeletedAtOnce() {
        ExpiryTable table = table("w-past");
        table.putWithTtl("a", secondsFromNow(-3_600));

        // The ledger records a delete once DynamoDB Local has answered it, a moment after the item is gone.
        Await.untilProgressing("deleted at once, by Punctual", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                () -> !table.contains("a") && runtime.observations().deletions().deletedAt(table.name(), key("a")).isPresent());
    }

    @Test
    void itemWrittenForABucketAlreadySealed_isStillDeletedAtItsTtl() {
        ExpiryTable table = table("w-sealed");
        long ttl = secondsFromNow(3);
        // The bucket's execution has already read its second (as when it ran just before this write).
        new DynamoDbScheduleIndex(runtime.dynamoDb(), ScheduleIndexTable.LOCAL_TABLE_NAME)
                .seal(Bucket.containing(table.name(), BucketLevel.SECOND, ttl), Instant.now());

        table.putWithTtl("a", ttl);

        Await.holdsUntil("present before its TTL", Instant.ofEpochSecond(ttl), () -> table.contains("a"));
        Await.untilProgressing("deleted by the handler's fallback after its TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
        assertDeletedAtOrAfter(table, "a", ttl);
    }

    @Test
    void duplicateAndReorderedBatches_indexEachItemOnce_andDeleteItOnce() throws Exception {
        // Re-deliver the table's own stream records to the real handler, as a retried batch would.
        ExpiryTable table = table("w-dup");
        long ttl = secondsFromNow(4);
        List<String> ids = List.of("a", "b", "c", "d", "e");
        ids.forEach(id -> table.putWithTtl(id, ttl));
        List<DynamodbStreamRecord> records = readStream(table, ids.size());
        List<DynamodbStreamRecord> reordered = new ArrayList<>(records);
        Collections.reverse(reordered);

        // This handler is the test's, not the runtime's: an item whose second has come by the time it handles the
        // batch (a loaded machine) it deletes itself, through its own client, which the runtime's ledger never
        // sees. Its deletes are recorded here instead.
        Map<Map<String, AttributeValue>, Instant> replayed = new java.util.concurrent.ConcurrentHashMap<>();
        try (DynamoDbClient own = LocalDynamoDbClients.dynamoDb(runtime.endpoints().dynamoDb());
             ExpiryStreamHandler handler = new ExpiryStreamHandler(FunctionParts.builder(runtime.mode().handlerEnvironment(table.watched()))
                    .dynamoDb(deletesRecordedIn(own, replayed)).build())) {
            assertThat(handler.handleRequest(event(records), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
            assertThat(handler.handleRequest(event(reordered), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
        }

        Await.untilProgressing("every item deleted", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> ids.stream().noneMatch(table::contains));
        ids.forEach(id -> assertDeletedAtOrAfter(table, id, ttl, replayed));
        assertDeletedOnce(table, ids);
        assertThat(bucketExecutions(table)).as("one minute bucket: the repeated starts found it (a one-second fallback is"
                + " possible when a batch reads the runner's mark in the milliseconds its read is in flight)")
                .filteredOn(name -> name.contains("-minute-")).hasSize(1);
    }

    @Test
    void pending_listsIndexedItemsSortedByExpiry_withTheirBucket_andLeavesStaleEntriesOut() {
        ExpiryTable table = table("w-pending");
        long soon = secondsFromNow(60);
        long later = secondsFromNow(3 * 3_600);
        table.putWithTtl("soon", soon);
        table.putWithTtl("later", later);
        table.putWithTtl("moved", later + 60);
        awaitIndexed(table, soon);
        table.updateTtl("moved", later + 120);
        Await.untilProgressing("the moved item re-indexed", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> pendingOutput(table).contains(Long.toString(later + 120)));

        String out = pendingOutput(table);

        List<String> rows = out.lines().filter(line -> line.contains(table.name())).toList();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(0)).contains("{\"id\":{\"S\":\"soon").contains(Long.toString(soon))
                .contains(Bucket.containing(table.name(), BucketLevel.MINUTE, soon).executionName());
        assertThat(rows.get(1)).contains("\"S\":\"later").contains(Bucket.containing(table.name(), BucketLevel.HOUR, later).executionName());
        assertThat(rows.get(2)).contains("\"S\":\"moved").contains(Long.toString(later + 120));
        assertThat(out).as("the entry for the moved item's old TTL").doesNotContain(Long.toString(later + 60));
        assertThat(out).contains("3 pending expiration(s)");
    }

    private static String pendingOutput(ExpiryTable table) {
        return pendingOutput(runtime, table);
    }

    private static String pendingOutput(LocalRuntime runtime, ExpiryTable table) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = PunctualCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), "pending",
                "--sfn-endpoint", runtime.endpoints().stepFunctions().toString(),
                "--dynamodb-endpoint", runtime.endpoints().dynamoDb().toString(), "--table", table.name());
        assertThat(code).as(err.toString()).isZero();
        return out.toString();
    }

    private static void awaitIndexed(ExpiryTable table, long ttl) {
        String bucket = Bucket.containing(table.name(), BucketLevel.forLead(ttl - Instant.now().getEpochSecond()), ttl)
                .executionName();
        Await.untilProgressing("bucket " + bucket + " started", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                () -> bucketExecutions(table).contains(bucket));
    }

    private static List<String> bucketExecutions(ExpiryTable table) {
        return bucketExecutions(runtime, table);
    }

    private static List<String> bucketExecutions(LocalRuntime runtime, ExpiryTable table) {
        String arn = runtime.mode().windowed().orElseThrow().bucketStateMachineArn();
        List<String> names = new ArrayList<>();
        for (ExecutionSummary summary : runtime.stepFunctionsEngine().listExecutions(arn, null, 1000, null).items()) {
            if (summary.name().contains("-" + table.name().substring(0, Math.min(24, table.name().length())))) {
                names.add(summary.name());
            }
        }
        return names;
    }

    private static void assertDeletedAtOrAfter(ExpiryTable table, String id, long ttl) {
        assertDeletedAtOrAfter(table, id, ttl, Map.of());
    }

    /** As above, for a test whose own handler may also have deleted items: {@code ownDeletes} holds when. */
    private static void assertDeletedAtOrAfter(ExpiryTable table, String id, long ttl, Map<Map<String, AttributeValue>, Instant> ownDeletes) {
        // The ledger is written when the delete call returns, a moment after the item is gone from the table.
        Await.untilProgressing(id + " in the deletion ledger", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                () -> ownDeletes.containsKey(key(id)) || runtime.observations().deletions().deletedAt(table.name(), key(id)).isPresent());
        Optional<Instant> deletedAt = Optional.ofNullable(ownDeletes.get(key(id)))
                .or(() -> runtime.observations().deletions().deletedAt(table.name(), key(id)));
        assertThat(deletedAt).as("%s deleted by Punctual", id).isPresent();
        assertThat(deletedAt.get()).as("%s deleted at or after its TTL", id).isAfterOrEqualTo(Instant.ofEpochSecond(ttl));
    }

    /** {@code client}, recording when each DeleteItem of an item returned without failing its condition. */
    private static DynamoDbClient deletesRecordedIn(DynamoDbClient client, Map<Map<String, AttributeValue>, Instant> deletes) {
        return (DynamoDbClient) java.lang.reflect.Proxy.newProxyInstance(DynamoDbClient.class.getClassLoader(),
                new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(client, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("deleteItem") && args != null && args[0] instanceof DeleteItemRequest request) {
                        deletes.putIfAbsent(request.key(), Instant.now());
                    }
                    return result;
                });
    }

    /** On skipped time, where the ledger has the delete once time is settled: inside the TTL's second, never before. */
    private static void assertDeletedInItsSecond(LocalRuntime runtime, ExpiryTable table, String id, long ttl) {
        Optional<Instant> deletedAt = runtime.observations().deletions().deletedAt(table.name(), key(id));
        assertThat(deletedAt).as("%s deleted by Punctual", id).isPresent();
        assertThat(deletedAt.get()).as("%s deleted inside its TTL second %s, never before it", id, Instant.ofEpochSecond(ttl))
                .isAfterOrEqualTo(Instant.ofEpochSecond(ttl)).isBefore(Instant.ofEpochSecond(ttl + 1));
    }

    /** Every REMOVE in the table's stream: one per item means no item was deleted twice. */
    private static void assertDeletedOnce(ExpiryTable table, List<String> ids) {
        assertDeletedOnce(streams, table, ids);
    }

    private static void assertDeletedOnce(DynamoDbStreamsClient streams, ExpiryTable table, List<String> ids) {
        List<String> removed = new ArrayList<>();
        for (DynamodbStreamRecord record : readAll(streams, table)) {
            if ("REMOVE".equals(record.getEventName())) {
                removed.add(record.getDynamodb().getKeys().get(ExpiryTable.KEY).getS());
            }
        }
        assertThat(removed).containsExactlyInAnyOrderElementsOf(ids);
    }

    private static List<DynamodbStreamRecord> readStream(ExpiryTable table, int count) {
        return Await.valueWhileProgressing(count + " stream records", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> {
            List<DynamodbStreamRecord> records = readAll(streams, table);
            return records.size() >= count ? Optional.of(records.subList(0, count)) : Optional.empty();
        });
    }

    private static List<DynamodbStreamRecord> readAll(DynamoDbStreamsClient streams, ExpiryTable table) {
        String streamArn = table.watched().streamArn();
        String shardId = streams.describeStream(r -> r.streamArn(streamArn)).streamDescription().shards().get(0).shardId();
        String iterator = streams.getShardIterator(r -> r.streamArn(streamArn).shardId(shardId)
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
        List<DynamodbStreamRecord> records = new ArrayList<>();
        for (int polls = 0; iterator != null && polls < 20; polls++) {
            String current = iterator;
            var page = streams.getRecords(r -> r.shardIterator(current));
            page.records().forEach(record -> records.add(StreamRecordConverter.toLambda(record, streamArn, LocalAccount.REGION)));
            iterator = page.records().isEmpty() ? null : page.nextShardIterator();
        }
        return records;
    }

    private static DynamodbEvent event(List<DynamodbStreamRecord> records) {
        DynamodbEvent event = new DynamodbEvent();
        event.setRecords(new ArrayList<>(records));
        return event;
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of(ExpiryTable.KEY, AttributeValue.fromS(id));
    }

    private static long secondsFromNow(long seconds) {
        return Instant.now().plusSeconds(seconds).getEpochSecond();
    }
}
