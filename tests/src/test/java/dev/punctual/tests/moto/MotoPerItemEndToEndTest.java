package dev.punctual.tests.moto;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.AttachedRuntime;
import dev.punctual.local.runtime.ExternalServices;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Per-item mode end to end on a second, independent AWS: moto's DynamoDB, its stream and its Step
 * Functions, which runs {@code expire-item.asl.json} with LocalStack's interpreter. Punctual's own parts
 * are only the stream poller and the real handler ({@link AttachedRuntime}); the Wait and the conditional
 * delete are moto's. Items are written with the AWS SDK, as an application writes them: 300 due over 30 s,
 * and one of each lifecycle (TTL moved later, moved earlier, removed; item deleted and written again; TTL
 * already past; a TTL in milliseconds; a String TTL).
 *
 * <p>What is asserted is what Punctual promises: no item deleted before its TTL, none missed, each deleted
 * once, nothing deleted on behalf of a TTL that no longer holds. Deletes are read from moto's own stream
 * (its records carry the time of the write to the millisecond); the wait for the end is for a state, no
 * execution left running, after which nothing more can be deleted. Lag is printed, not asserted: it is
 * moto's and this machine's, not AWS's.
 */
class MotoPerItemEndToEndTest {

    private static final String TABLE = "moto-orders";
    private static final String TTL = "expiresAt";
    private static final int DUE_ITEMS = 300;
    /**
     * The first due item's TTL lies this far ahead. moto is one Python process that parses the definition
     * anew for every StartExecution: 300 of them take 5-15 s beside a build on two cores, and an item written
     * or scheduled after its TTL would measure moto's backlog rather than its wait.
     */
    private static final int DUE_LEAD_SECONDS = 30;
    /**
     * The lifecycle's first TTLs lie this far past the moment the due items are all deleted: its second
     * writes must land before them, and moto must first start the four executions they make stale (a later
     * attempt doubles it: {@link #lifecycleInTime()}).
     */
    private static final int LIFECYCLE_LEAD_SECONDS = 30;
    /**
     * How long moto may go without doing any of the work a wait is for (a StartExecution, a delete, an
     * execution closing) before the wait fails. moto has no counter of its work and no timer to drive, so the
     * waits watch its work itself, not a budget: one Python process beside a second suite on two cores took
     * minutes for the 300 items, moving all the while.
     */
    private static final Duration MOTO_STALL = Duration.ofSeconds(60);
    /** How often a probe lists executions on moto, which runs them in the same process. */
    private static final Duration MOTO_POLL = Duration.ofMillis(500);

    private static MotoServer moto;
    private static AttachedRuntime runtime;
    private static DynamoDbClient dynamoDb;
    private static DynamoDbStreamsClient streams;
    private static SfnClient stepFunctions;

    @BeforeAll
    static void startMotoAndAttach() {
        moto = MotoServer.start(Path.of("target", "moto", "MotoPerItemEndToEndTest.log"));
        runtime = AttachedRuntime.start(LocalRuntime.Options.onFreePorts()
                .withTables(Set.of(TABLE))
                .attachedTo(new ExternalServices(moto.endpoint(), moto.endpoint())));
        dynamoDb = LocalDynamoDbClients.dynamoDb(moto.endpoint());
        streams = LocalDynamoDbClients.streams(moto.endpoint());
        stepFunctions = LocalClients.stepFunctions(moto.endpoint());
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {stepFunctions, streams, dynamoDb, runtime, moto}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + closeable.getClass().getSimpleName(), e);
                }
            }
        }
    }

    @Test
    void perItem_onMoto_deletesEveryItemAtOrAfterItsTtl_once_andNothingWhoseTtlChanged() {
        String streamArn = createTable();
        Await.until("the poller to read table " + TABLE, Duration.ofSeconds(30),
                () -> runtime.streamPoller().watchedTables().stream().map(WatchedTable::tableName).anyMatch(TABLE::equals));
        long base = Instant.now().getEpochSecond() + 1;
        Map<String, Long> due = new LinkedHashMap<>();
        for (int i = 0; i < DUE_ITEMS; i++) {
            due.put(String.format("due-%03d", i), base + DUE_LEAD_SECONDS + i / 10);
        }
        due.entrySet().parallelStream().forEach(item -> putWithTtl(item.getKey(), item.getValue()));
        awaitExecutions(DUE_ITEMS);
        // The lifecycle starts once moto has deleted the due items and closed their executions: moto is one
        // Python process, and with 300 executions waiting and then deleting it started the lifecycle's five
        // too slowly for their 20 s (CI, 302 of 305). Alone it starts them in well under a second.
        StreamReader stream = new StreamReader(streamArn);
        // An item's delete cannot come before its TTL, nor before its execution: a stall counts from the last TTL.
        Instant lastDue = Instant.ofEpochSecond(base + DUE_LEAD_SECONDS + (DUE_ITEMS - 1) / 10);
        awaitWhileMotoWorks(() -> "every due item deleted; missing: " + missing(stream.removes(), due), lastDue, stream,
                () -> missing(stream.removes(), due).isEmpty());
        awaitWhileMotoWorks(() -> "the due items' executions closed on moto; running: " + executions(ExecutionStatus.RUNNING).size(),
                lastDue, stream, () -> executions(ExecutionStatus.RUNNING).isEmpty());

        // The lifecycle starts once moto has caught up, so how long the due items took cannot eat its lead.
        long past = Instant.now().getEpochSecond() - 60;
        putWithTtl("past", past);
        long far = Instant.now().getEpochSecond() + 3_600;
        put("millis", AttributeValue.fromN(Long.toString(far * 1000)));
        put("string", AttributeValue.fromS(Long.toString(far)));
        // Its TTL passed, so moto deletes it at once: done before the lifecycle counts executions of its own.
        awaitWhileMotoWorks(() -> "the item with a past TTL deleted", Instant.MIN, stream,
                () -> missing(stream.removes(), Map.of("past", past)).isEmpty());
        Lifecycle cycle = lifecycleInTime();
        long lifecycle = cycle.ttl();

        Map<String, Long> punctualDeletes = new LinkedHashMap<>(due);
        punctualDeletes.put(cycle.key("moved-later"), lifecycle + 10);
        punctualDeletes.put(cycle.key("moved-earlier"), lifecycle + 3);
        punctualDeletes.put(cycle.key("rewritten"), lifecycle + 5);
        punctualDeletes.put("past", past);
        Instant lastLifecycleTtl = Instant.ofEpochSecond(lifecycle + 20);
        awaitWhileMotoWorks(() -> "every due item deleted; missing: " + missing(stream.removes(), punctualDeletes),
                lastLifecycleTtl, stream, () -> missing(stream.removes(), punctualDeletes).isEmpty());
        awaitWhileMotoWorks(() -> "no execution left running on moto; running: " + executions(ExecutionStatus.RUNNING).size(),
                lastLifecycleTtl, stream, () -> executions(ExecutionStatus.RUNNING).isEmpty());
        Map<String, List<Remove>> removes = stream.removes();

        punctualDeletes.forEach((key, ttl) -> {
            List<Remove> byPunctual = removes.getOrDefault(key, List.of()).stream().filter(r -> r.ttl() == ttl).toList();
            assertThat(byPunctual).as("deletes of %s on behalf of TTL %d", key, ttl).hasSize(1);
            assertThat(byPunctual.get(0).at()).as("when %s (TTL %d) was deleted", key, ttl)
                    .isAfterOrEqualTo(Instant.ofEpochSecond(ttl));
        });
        due.keySet().forEach(key -> assertThat(removes.get(key)).as("REMOVE records of %s", key).hasSize(1));
        assertThat(removes.get(cycle.key("moved-later"))).as("moved later: deleted once, at its new TTL").hasSize(1);
        assertThat(removes.get(cycle.key("moved-earlier"))).as("moved earlier: deleted once, at its new TTL").hasSize(1);
        assertThat(removes.get(cycle.key("rewritten"))).as("rewritten: the application's delete, then Punctual's at the new TTL")
                .extracting(Remove::ttl).containsExactly(lifecycle, lifecycle + 5);
        assertThat(removes.get("past")).as("TTL already past: deleted once").hasSize(1);
        for (String kept : List.of(cycle.key("ttl-removed"), "millis", "string")) {
            assertThat(removes).as("REMOVE records of %s", kept).doesNotContainKey(kept);
            assertThat(dynamoDb.getItem(r -> r.tableName(TABLE).key(key(kept)).consistentRead(true)).hasItem())
                    .as("%s is still in the table", kept).isTrue();
        }
        assertThat(executions(null)).as("executions on moto that failed")
                .filteredOn(e -> e.status() != ExecutionStatus.SUCCEEDED && e.status() != ExecutionStatus.ABORTED)
                .isEmpty();

        List<Long> lags = due.entrySet().stream()
                .map(e -> Duration.between(Instant.ofEpochSecond(e.getValue()), removes.get(e.getKey()).get(0).at()).toMillis())
                .sorted().toList();
        System.out.printf("MotoPerItemEndToEndTest: lag from TTL to delete on moto, %d items: p50 %d ms, p90 %d ms,"
                        + " p99 %d ms, max %d ms (min %d ms)%n", lags.size(), percentile(lags, 50), percentile(lags, 90),
                percentile(lags, 99), lags.get(lags.size() - 1), lags.get(0));
    }

    /**
     * The lifecycle's items, written and changed before the TTLs the changes make stale: moved later, moved
     * earlier, TTL removed, deleted and written again. Its first TTLs lie {@link #LIFECYCLE_LEAD_SECONDS} ahead;
     * when moto (one Python process, beside a second suite on two cores) has not started their executions and
     * taken the changes by then, that attempt cannot show what it is for, and a new one starts on new keys with
     * twice the lead. What moto does with an attempt's items is still read off its stream and checked by the
     * waits for every execution to close; only the attempt that landed in time is asserted on.
     */
    private Lifecycle lifecycleInTime() {
        long lead = LIFECYCLE_LEAD_SECONDS;
        for (int attempt = 1; ; attempt++) {
            Lifecycle cycle = new Lifecycle(attempt, Instant.now().getEpochSecond() + lead);
            long ttl = cycle.ttl();
            int before = executions(null).size();
            putWithTtl(cycle.key("moved-later"), ttl);
            putWithTtl(cycle.key("moved-earlier"), ttl + 20);
            putWithTtl(cycle.key("ttl-removed"), ttl);
            putWithTtl(cycle.key("rewritten"), ttl);
            // Every TTL here starts its execution on moto: the changes below make all four stale.
            Await.untilProgressingAfter(() -> "executions of the lifecycle's four items on moto, "
                            + (executions(null).size() - before) + " so far", Instant.MIN, MOTO_STALL, MOTO_POLL,
                    () -> executions(null).size(), () -> executions(null).size() >= before + 4);
            if (Instant.now().isBefore(Instant.ofEpochSecond(ttl - 10))) {
                putWithTtl(cycle.key("moved-later"), ttl + 10);
                putWithTtl(cycle.key("moved-earlier"), ttl + 3);
                dynamoDb.updateItem(r -> r.tableName(TABLE).key(key(cycle.key("ttl-removed"))).updateExpression("REMOVE #ttl")
                        .expressionAttributeNames(Map.of("#ttl", TTL)));
                dynamoDb.deleteItem(r -> r.tableName(TABLE).key(key(cycle.key("rewritten"))));
                putWithTtl(cycle.key("rewritten"), ttl + 5);
                if (Instant.now().isBefore(Instant.ofEpochSecond(ttl))) {
                    return cycle;
                }
            }
            System.out.printf("MotoPerItemEndToEndTest: lifecycle attempt %d missed its TTLs with a %d s lead;"
                    + " again with %d s%n", attempt, lead, lead * 2);
            assertThat(attempt).as("lifecycle attempts, each with twice the lead (%d s last)", lead).isLessThan(4);
            lead *= 2;
        }
    }

    /** A lifecycle attempt: its keys carry its number; {@code ttl} is the first TTL its changes make stale. */
    private record Lifecycle(int attempt, long ttl) {

        String key(String name) {
            return name + "-" + attempt;
        }
    }

    private String createTable() {
        dynamoDb.createTable(r -> r.tableName(TABLE)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
        dynamoDb.updateTimeToLive(r -> r.tableName(TABLE).timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL)));
        return dynamoDb.describeTable(r -> r.tableName(TABLE)).table().latestStreamArn();
    }

    private void putWithTtl(String key, long ttl) {
        put(key, AttributeValue.fromN(Long.toString(ttl)));
    }

    private void put(String key, AttributeValue ttl) {
        Map<String, AttributeValue> item = new LinkedHashMap<>(key(key));
        item.put(TTL, ttl);
        dynamoDb.putItem(r -> r.tableName(TABLE).item(item));
    }

    private static Map<String, AttributeValue> key(String key) {
        return Map.of("pk", AttributeValue.fromS(key));
    }

    /**
     * Waits until moto holds {@code count} executions of the expire-item machine, in any status, for as long
     * as their number keeps growing.
     */
    private static void awaitExecutions(int count) {
        Await.untilProgressingAfter(() -> "executions of " + count + " items on moto, " + executions(null).size() + " so far",
                Instant.MIN, MOTO_STALL, MOTO_POLL, () -> executions(null).size(), () -> executions(null).size() >= count);
    }

    /**
     * Waits until {@code condition} holds, for as long as moto keeps working: fails only when, from {@code due}
     * on, nothing has moved for {@link #MOTO_STALL}: no REMOVE in its stream, no execution started or closed.
     */
    private static void awaitWhileMotoWorks(Supplier<String> description, Instant due, StreamReader stream,
            BooleanSupplier condition) {
        Await.untilProgressingAfter(description, due, MOTO_STALL, MOTO_POLL, () -> {
            List<ExecutionListItem> all = executions(null);
            long closed = all.stream().filter(e -> e.status() != ExecutionStatus.RUNNING).count();
            long removes = stream.removes().values().stream().mapToLong(List::size).sum();
            return removes + all.size() + closed;
        }, condition);
    }

    /** The executions of the expire-item machine on moto, of {@code status} ({@code null}: all). */
    private static List<ExecutionListItem> executions(ExecutionStatus status) {
        return stepFunctions.listExecutionsPaginator(r -> r.stateMachineArn(runtime.stateMachineArn()).statusFilter(status))
                .executions().stream().toList();
    }

    /** The keys of {@code expected} with no REMOVE of the TTL they expect. */
    private static List<String> missing(Map<String, List<Remove>> removes, Map<String, Long> expected) {
        return expected.entrySet().stream()
                .filter(e -> removes.getOrDefault(e.getKey(), List.of()).stream().noneMatch(r -> r.ttl() == e.getValue()))
                .map(Map.Entry::getKey).toList();
    }

    private static long percentile(List<Long> sorted, int percent) {
        return sorted.get(Math.max(0, (int) Math.ceil(percent / 100.0 * sorted.size()) - 1));
    }

    /** A REMOVE record: when moto wrote it, and the TTL the item held ({@code -1} for none). */
    record Remove(Instant at, long ttl) {
    }

    /** moto's stream of the table, read from its start, kept open across reads. */
    private static final class StreamReader {

        /** By eventID: a reader may be handed a record twice (at-least-once); a second delete has an ID of its own. */
        private final Map<String, Record> records = new LinkedHashMap<>();
        private String iterator;

        StreamReader(String streamArn) {
            String shard = streams.describeStream(r -> r.streamArn(streamArn)).streamDescription().shards().get(0).shardId();
            iterator = streams.getShardIterator(r -> r.streamArn(streamArn).shardId(shard)
                    .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
        }

        /** The REMOVE records so far, by key, in stream order. */
        Map<String, List<Remove>> removes() {
            while (true) {
                String current = iterator;
                var page = streams.getRecords(r -> r.shardIterator(current));
                page.records().forEach(record -> records.putIfAbsent(record.eventID(), record));
                iterator = page.nextShardIterator();
                if (page.records().isEmpty()) {
                    break;
                }
            }
            return records.values().stream().filter(r -> r.eventName() == OperationType.REMOVE)
                    .collect(Collectors.groupingBy(r -> r.dynamodb().keys().get("pk").s(), LinkedHashMap::new,
                            Collectors.mapping(r -> new Remove(r.dynamodb().approximateCreationDateTime(), ttlOf(r)),
                                    Collectors.toList())));
        }

        private static long ttlOf(Record record) {
            AttributeValue ttl = record.dynamodb().oldImage().get(TTL);
            return ttl == null || ttl.n() == null ? -1 : Long.parseLong(ttl.n());
        }
    }
}
