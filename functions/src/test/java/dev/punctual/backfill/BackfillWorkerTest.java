package dev.punctual.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.EventName;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Reason;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.expiry.ThrottledException;
import dev.punctual.functions.ChangeProcessorScheduling;
import dev.punctual.functions.DynamoDbBackfillProgress;
import dev.punctual.functions.DynamoDbTableReader;
import dev.punctual.functions.ExpirySettings;
import dev.punctual.functions.FunctionParts;
import dev.punctual.names.BackfillExecutionName;
import dev.punctual.peritem.ItemPlan;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StreamWiring;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The backfill core on DynamoDB Local (in-process, see {@link EmbeddedDynamoDb}) through the real
 * adapters and the stream handler's own processors, with a fake Step Functions. The table holds 30
 * items: 20 with valid TTLs a minute or more ahead, 5 with String TTLs, 3 without TTL, 2 in
 * milliseconds.
 */
class BackfillWorkerTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String ITEM_MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:expire-item";
    private static final String BUCKET_MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:expire-bucket";
    private static final String EXECUTION = "arn:aws:states:us-east-1:123456789012:execution:backfill:first";
    private static final String SECOND_EXECUTION = "arn:aws:states:us-east-1:123456789012:execution:backfill:second";
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static EmbeddedDynamoDb local;
    private static DynamoDbClient dynamoDb;

    private final FakeExecutions executions = new FakeExecutions();
    private final Recorded heard = new Recorded();
    private MutableClock clock;
    private String table;

    @BeforeAll
    static void startDynamoDbLocal() throws ReflectiveOperationException {
        local = new EmbeddedDynamoDb();
        dynamoDb = local.client();
        createTable(BackfillProgressTable.LOCAL_TABLE_NAME, BackfillProgressTable.PARTITION_KEY, BackfillProgressTable.SORT_KEY,
                ScalarAttributeType.S);
        createTable(ScheduleIndexTable.LOCAL_TABLE_NAME, ScheduleIndexTable.PARTITION_KEY, ScheduleIndexTable.SORT_KEY,
                ScalarAttributeType.S);
    }

    @AfterAll
    static void stopDynamoDbLocal() {
        local.close();
    }

    private static void createTable(String name, String partition, String sort, ScalarAttributeType sortType) {
        dynamoDb.createTable(r -> r.tableName(name)
                .keySchema(k -> k.attributeName(partition).keyType(KeyType.HASH), k -> k.attributeName(sort).keyType(KeyType.RANGE))
                .attributeDefinitions(a -> a.attributeName(partition).attributeType(ScalarAttributeType.S),
                        a -> a.attributeName(sort).attributeType(sortType))
                .billingMode(BillingMode.PAY_PER_REQUEST));
    }

    @BeforeEach
    void createItems() {
        clock = new MutableClock(NOW);
        table = "backfill.items-" + TABLES.incrementAndGet();
        createTable(table, "pk", "sk", ScalarAttributeType.N);
        dynamoDb.updateTimeToLive(r -> r.tableName(table).timeToLiveSpecification(t -> t.enabled(true).attributeName("ttl")));
        for (int i = 0; i < 30; i++) {
            Map<String, AttributeValue> item = new HashMap<>();
            item.put("pk", AttributeValue.fromS("item-" + i));
            item.put("sk", AttributeValue.fromN(Integer.toString(i)));
            item.put("body", AttributeValue.fromS("private " + i));
            if (i < 20) {
                item.put("ttl", AttributeValue.fromN(Long.toString(NOW.getEpochSecond() + 60 + i)));
            } else if (i < 25) {
                item.put("ttl", AttributeValue.fromS("soon"));
            } else if (i >= 28) {
                item.put("ttl", AttributeValue.fromN(Long.toString(NOW.toEpochMilli())));
            }
            dynamoDb.putItem(r -> r.tableName(table).item(item));
        }
    }

    private BackfillWorker worker(String mode) {
        return new BackfillWorker(new DynamoDbTableReader(dynamoDb), new DynamoDbBackfillProgress(dynamoDb,
                BackfillProgressTable.LOCAL_TABLE_NAME), scheduling(mode),
                clock, clock, new ThrottleBackoff(clock, clock, new Random(7)), heard, Optional.empty(), Optional.empty());
    }

    /** The backfill function's own way into {@code mode}, on the fake Step Functions and DynamoDB Local. */
    private ChangeProcessorScheduling scheduling(String mode) {
        Map<String, String> environment = new HashMap<>();
        environment.put(StreamWiring.ENV_STATE_MACHINE_ARN, mode.equals("windowed") ? BUCKET_MACHINE : ITEM_MACHINE);
        environment.put(StreamWiring.ENV_MODE, mode);
        environment.put(StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME);
        return new ChangeProcessorScheduling(FunctionParts.builder(ExpirySettings.forBackfillFunction(environment))
                .executions(executions).dynamoDb(dynamoDb).clock(clock).sleeper(clock).build());
    }

    private static BackfillRequest request(String table, Map<String, Object> more) {
        Map<String, Object> input = new HashMap<>(more);
        input.put("table", table);
        return BackfillRequest.fromInput(input);
    }

    /** A whole run over the table in {@code segments}, unpaced, by the execution {@code executionArn}; finished. */
    private BackfillWorker.Finished backfillWholeTable(BackfillWorker worker, int segments, String executionArn) {
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", segments, "startsPerSecond", 0)),
                executionArn);
        scanAll(worker, prepared);
        return worker.finish(prepared.run());
    }

    /** Runs every segment of the prepared run to its end, page after page, as the workflow's Map does. */
    private static List<BackfillWorker.PageResult> scanAll(BackfillWorker worker, BackfillWorker.Prepared prepared) {
        List<BackfillWorker.PageResult> pages = new ArrayList<>();
        for (int segment : prepared.segmentsLeft()) {
            BackfillWorker.PageResult page;
            do {
                page = worker.scanPage(prepared.run(), segment, Duration.ofSeconds(30));
                pages.add(page);
            } while (!page.done());
        }
        return pages;
    }

    @Test
    void perItem_schedulesEveryValidTtlUnderTheStreamHandlersNames_andSkipsTheRestWithAReason() {
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 3, "pageSize", 4, "startsPerSecond", 0)),
                EXECUTION);

        scanAll(worker, prepared);
        BackfillWorker.Finished finished = worker.finish(prepared.run());

        assertThat(prepared.run().ttlAttribute()).as("read from DescribeTimeToLive").isEqualTo("ttl");
        assertThat(prepared.segmentsLeft()).containsExactly(0, 1, 2);
        assertThat(finished.complete()).isTrue();
        assertThat(finished.totals()).isEqualTo(new BackfillCounts(30, 20, 0, 10));
        ItemKey key = ItemKey.of(Map.of("pk", AttributeText.s("item-3"), "sk", AttributeText.n("3")));
        String fromStream = ItemPlan.of(new ExpiryRules("ttl").decide(new StreamChange(table, EventName.INSERT, key, false, null, true,
                AttributeText.n(Long.toString(NOW.getEpochSecond() + 63)), "1", StreamChange.Writer.UNKNOWN, NOW), NOW), NOW, true)
                .execution().orElseThrow();
        assertThat(executions.executions()).hasSize(20).containsKey(fromStream);
        assertThat(heard.skipped).as("bad data, each told once; an item without TTL is not bad data")
                .hasSize(7).extracting(Skipped::reason)
                .containsOnly(Reason.TTL_NOT_A_NUMBER, Reason.TTL_LOOKS_LIKE_MILLISECONDS);
    }

    @Test
    void perItem_ttlAlreadyPassed_startsAnExecutionThatDeletesAtOnce_countedAsDeletedNow() {
        clock.sleep(Duration.ofSeconds(70));
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 1, "startsPerSecond", 0)), EXECUTION);

        scanAll(worker, prepared);

        // Items 0-10 were due at NOW+60..NOW+70: passed by NOW+70.
        assertThat(worker.finish(prepared.run()).totals()).isEqualTo(new BackfillCounts(30, 9, 11, 10));
        assertThat(executions.executions()).hasSize(20);
    }

    @Test
    void aFailedStart_failsThePageWithoutSavingIt_andTheRetriedPageSchedulesTheRestNothingTwice() {
        // Item 15's TTL is NOW + 75 s, so its execution's name starts with 20260101T000115Z.
        executions.failStarts(name -> name.startsWith("20260101T000115Z"), new IllegalStateException("ExecutionLimitExceeded"));
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 1, "startsPerSecond", 0)), EXECUTION);

        assertThatThrownBy(() -> scanAll(worker, prepared)).isInstanceOf(BackfillPageException.class)
                .hasMessageContaining("1 of 30 items").hasMessageContaining("ExecutionLimitExceeded");
        assertThat(heard.saved).as("nothing saved").isEmpty();
        assertThat(executions.executions()).hasSize(19);

        executions.failStarts(name -> false, null);
        scanAll(worker, prepared);
        assertThat(executions.executions()).hasSize(20);
        assertThat(executions.calls().stream().filter(call -> call.startsWith("start ")).distinct()).hasSize(20);
        assertThat(worker.finish(prepared.run()).totals().scheduled()).isEqualTo(20);
    }

    /**
     * Why a run's {@code scanned} can fall short of the table's size while nothing is left behind: an attempt
     * of a page that fails has already deleted the page's items whose TTL had passed, so the retried page,
     * scanning from the same position, no longer sees them, and no saved page counts them.
     */
    @Test
    void aFailedWindowedPage_hasDeletedItsPastItems_whichTheRetriedPageNeitherSeesNorCounts_andNothingIsLeft() {
        clock.sleep(Duration.ofSeconds(70));
        executions.failStarts(name -> true, new IllegalStateException("ExecutionLimitExceeded"));
        BackfillWorker worker = worker("windowed");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 1, "startsPerSecond", 0)), EXECUTION);

        assertThatThrownBy(() -> scanAll(worker, prepared)).isInstanceOf(BackfillPageException.class);
        executions.failStarts(name -> false, null);
        scanAll(worker, prepared);

        // Items 0-10 were due at NOW+60..NOW+70: the failed attempt deleted them; items 11-19 are indexed.
        assertThat(worker.finish(prepared.run()).totals()).isEqualTo(new BackfillCounts(19, 9, 0, 10));
        assertThat(dynamoDb.scan(r -> r.tableName(table)).items()).as("the past items are gone, the rest are there")
                .extracting(item -> Integer.parseInt(item.get("sk").n())).containsExactlyInAnyOrderElementsOf(
                        java.util.stream.IntStream.range(11, 30).boxed().toList());
        assertThat(indexOf(table).stream().mapToInt(chunk -> chunk.get(ScheduleIndexTable.ENTRIES).l().size()).sum())
                .as("every item still due is held by a bucket").isEqualTo(9);
    }

    @Test
    void throttledStarts_areRetriedWithBackoffWithinThePage() {
        AtomicInteger throttles = new AtomicInteger(3);
        executions.failStarts(name -> throttles.getAndDecrement() > 0, new ThrottledException("StartExecution",
                new RuntimeException("Rate exceeded")));
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 1, "startsPerSecond", 0)), EXECUTION);

        scanAll(worker, prepared);

        assertThat(executions.executions()).hasSize(20);
        assertThat(clock.slept()).as("backed off on the clock").isPositive();
    }

    @Test
    void startsArePacedAtTheSegmentsShareOfTheRate() {
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 2, "startsPerSecond", 10)), EXECUTION);

        scanAll(worker, prepared);

        // 20 starts at 5 a second per segment (a burst of 5 per page): at least 2 s of waiting.
        assertThat(executions.executions()).hasSize(20);
        assertThat(clock.slept()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aRunStoppedHalfway_isResumedFromItsSavedPositions_byTheNextExecution() {
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared first = worker.prepare(request(table, Map.of("segments", 2, "pageSize", 5, "startsPerSecond", 0)),
                EXECUTION);
        BackfillWorker.PageResult page = worker.scanPage(first.run(), 0, Duration.ZERO);
        int startsBefore = executions.calls().size();

        BackfillWorker.Prepared again = worker.prepare(request(table, Map.of("segments", 7)), SECOND_EXECUTION);

        assertThat(again.resumed()).isTrue();
        assertThat(again.run()).as("the same run, its own segments").isEqualTo(first.run());
        BackfillWorker.PageResult next = worker.scanPage(again.run(), 0, Duration.ZERO);
        assertThat(next.segmentAfter().pages()).isEqualTo(2);
        assertThat(next.segmentAfter().counts().scanned()).isEqualTo(page.page().scanned() + next.page().scanned());
        assertThat(executions.calls().subList(0, startsBefore)).doesNotContainAnyElementsOf(
                executions.calls().subList(startsBefore, executions.calls().size()));
        scanAll(worker, again);
        assertThat(worker.finish(again.run()).totals().scanned()).as("every item read once").isEqualTo(30);
    }

    @Test
    void aFinishedRun_isFollowedByANewRunFromTheStart_whichStartsNothingNew() {
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared first = worker.prepare(request(table, Map.of("startsPerSecond", 0)), EXECUTION);
        scanAll(worker, first);
        assertThat(worker.finish(first.run()).complete()).isTrue();

        clock.sleep(Duration.ofSeconds(10));
        BackfillWorker.Prepared second = worker.prepare(request(table, Map.of("startsPerSecond", 0)), SECOND_EXECUTION);
        scanAll(worker, second);

        assertThat(second.resumed()).isFalse();
        assertThat(second.run().id()).isNotEqualTo(first.run().id());
        assertThat(worker.finish(second.run()).totals()).isEqualTo(new BackfillCounts(30, 20, 0, 10));
        assertThat(executions.executions()).as("same names and inputs: nothing new").hasSize(20);
    }

    @Test
    void twoExecutionsOnOneRun_neverMoveASegmentBack() {
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 1, "pageSize", 5, "startsPerSecond", 0)),
                EXECUTION);
        worker.scanPage(prepared.run(), 0, Duration.ZERO);
        DynamoDbBackfillProgress store = new DynamoDbBackfillProgress(dynamoDb, BackfillProgressTable.LOCAL_TABLE_NAME);
        SegmentProgress saved = store.segment(table, 0).orElseThrow();

        // A second execution read the same position, scheduled the same page, and saves after the first did.
        assertThat(store.save(table, saved.after(null, BackfillCounts.NONE), saved.pages() - 1)).isFalse();
        assertThat(store.segment(table, 0)).contains(saved);
        assertThat(store.save(table, saved.after(saved.position(), new BackfillCounts(1, 1, 0, 0)), saved.pages())).isTrue();
    }

    @Test
    void windowed_indexesItemsIntoBucketsWithoutAnExecutionPerItem_andARerunWritesNothingNew() {
        BackfillWorker worker = worker("windowed");
        backfillWholeTable(worker, 2, EXECUTION);
        List<Map<String, AttributeValue>> index = indexOf(table);
        Map<String, FakeExecutions.Execution> buckets = Map.copyOf(executions.executions());

        assertThat(backfillWholeTable(worker, 2, SECOND_EXECUTION).totals()).isEqualTo(new BackfillCounts(30, 20, 0, 10));
        assertThat(buckets).as("one bucket (items 60-79 s ahead: all in the next minute's bucket), no per-item execution")
                .hasSize(1).allSatisfy((name, execution) -> assertThat(name).contains("-minute-"));
        assertThat(index.stream().mapToInt(chunk -> chunk.get(ScheduleIndexTable.ENTRIES).l().size()).sum()).isEqualTo(20);
        assertThat(indexOf(table)).as("the same chunks, by digest").isEqualTo(index);
        assertThat(executions.executions()).as("the same buckets, by name").isEqualTo(buckets);
    }

    @Test
    void windowed_aBucketWhoseExecutionFailed_isScheduledIntoItsNextGeneration_neverIntoTheDeadOne() {
        BackfillWorker worker = worker("windowed");
        backfillWholeTable(worker, 1, EXECUTION);
        Set<String> dead = executions.executions().keySet();
        dead.forEach(bucket -> executions.close(bucket, Executions.Status.FAILED));
        executions.clearCalls();

        assertThat(backfillWholeTable(worker, 1, SECOND_EXECUTION).totals()).as("every item held by a live bucket again")
                .isEqualTo(new BackfillCounts(30, 20, 0, 10));
        assertThat(dead).isNotEmpty().allSatisfy(bucket -> {
            assertThat(executions.executions()).as("the successor generation of " + bucket).hasEntrySatisfying(
                    bucket + "-g1", successor -> assertThat(successor.status()).isEqualTo(Executions.Status.RUNNING));
            assertThat(executions.calls()).contains("start " + bucket, "describe " + bucket, "start " + bucket + "-g1");
        });
    }

    @Test
    void aResumedRun_listsOnlyItsSegmentsNotDone_andTheListenerHearsEachStep() {
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared first = worker.prepare(request(table, Map.of("segments", 2, "startsPerSecond", 0)), EXECUTION);
        BackfillWorker.PageResult page;
        do {
            page = worker.scanPage(first.run(), 1, Duration.ZERO);
        } while (!page.done());

        BackfillWorker.PageResult retried = worker.scanPage(first.run(), 1, Duration.ZERO);
        assertThat(retried).as("a step retried after its segment is done reads nothing")
                .isEqualTo(new BackfillWorker.PageResult(1, BackfillCounts.NONE, page.segmentAfter(), false));

        BackfillWorker.Prepared again = worker.prepare(request(table, Map.of()), SECOND_EXECUTION);
        assertThat(again.segmentsLeft()).as("segment 1 is done").containsExactly(0);
        assertThat(worker.finish(again.run()).complete()).isFalse();
        scanAll(worker, again);
        BackfillWorker.Finished finished = worker.finish(again.run());

        assertThat(finished.complete()).isTrue();
        assertThat(heard.saved).as("one line per page").hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(segment -> assertThat(segment.runId()).isEqualTo(first.run().id()));
        assertThat(heard.told).containsExactly("prepared new 2", "prepared resumed 1", "finished 30");
        assertThat(new DynamoDbBackfillProgress(dynamoDb, BackfillProgressTable.LOCAL_TABLE_NAME).run(table).orElseThrow()
                .finished()).as("the run is marked finished, so the next start begins a new one").contains(NOW);
    }

    @Test
    void aPageAnotherExecutionSavedFirst_isNotSavedAgain_andTheSegmentIsWhereTheOtherLeftIt() {
        ProgressStore store = new DynamoDbBackfillProgress(dynamoDb, BackfillProgressTable.LOCAL_TABLE_NAME);
        AtomicInteger saves = new AtomicInteger();
        ProgressStore racing = new ProgressStore() {
            @Override
            public Optional<BackfillRun> run(String name) {
                return store.run(name);
            }

            @Override
            public boolean begin(BackfillRun run, Optional<String> replacing) {
                return store.begin(run, replacing);
            }

            @Override
            public void finish(String name, String runId, java.time.Instant at) {
                store.finish(name, runId, at);
            }

            @Override
            public List<SegmentProgress> segments(String name) {
                return store.segments(name);
            }

            @Override
            public Optional<SegmentProgress> segment(String name, int segment) {
                return store.segment(name, segment);
            }

            /** The first save finds the same page saved by another execution a moment before. */
            @Override
            public boolean save(String name, SegmentProgress next, long pagesBefore) {
                if (saves.getAndIncrement() == 0) {
                    store.save(name, next, pagesBefore);
                }
                return store.save(name, next, pagesBefore);
            }
        };
        BackfillWorker worker = new BackfillWorker(new DynamoDbTableReader(dynamoDb), racing, scheduling("per-item"),
                clock, clock, new ThrottleBackoff(clock, clock, new Random(5)), heard, Optional.of(table), Optional.empty());
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 1, "pageSize", 10)), EXECUTION);

        BackfillWorker.PageResult page = worker.scanPage(prepared.run(), 0, Duration.ZERO);

        assertThat(page.saved()).isFalse();
        assertThat(page.segmentAfter().pages()).isEqualTo(1);
        assertThat(heard.told).contains("overlapped 0");
        assertThat(heard.saved).isEmpty();
    }

    @Test
    void aRunsTtlAttribute_isTheFunctionsDefault_beforeTheTablesOwn() {
        String noTtl = table + "-default";
        createTable(noTtl, "pk", "sk", ScalarAttributeType.N);
        BackfillWorker worker = new BackfillWorker(new DynamoDbTableReader(dynamoDb), new DynamoDbBackfillProgress(dynamoDb,
                BackfillProgressTable.LOCAL_TABLE_NAME), scheduling("per-item"), clock, clock,
                new ThrottleBackoff(clock, clock, new Random(2)), heard, Optional.empty(), Optional.of("validUntil"));

        assertThat(worker.prepare(request(noTtl, Map.of()), EXECUTION).run().ttlAttribute()).isEqualTo("validUntil");
        assertThat(worker.prepare(request(table, Map.of("restart", true)), EXECUTION).run().ttlAttribute())
                .as("even where the table names its own").isEqualTo("validUntil");
    }

    @Test
    void scanPage_refusesASegmentTheRunDoesNotHave() {
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(table, Map.of("segments", 2)), EXECUTION);

        assertThatThrownBy(() -> worker.scanPage(prepared.run(), 2, Duration.ZERO)).isInstanceOf(BackfillInputException.class)
                .hasMessage("segment 2 is not one of the run's 0 to 1");
        assertThatThrownBy(() -> worker.scanPage(prepared.run(), -1, Duration.ZERO)).isInstanceOf(BackfillInputException.class);
        assertThat(BackfillWorker.successorName(prepared.run(), EXECUTION))
                .isEqualTo(BackfillExecutionName.successor(table, prepared.run().id(), EXECUTION).toString());
    }

    @Test
    void anEmptyTable_finishesAtOnce() {
        String empty = table + "-empty";
        createTable(empty, "pk", "sk", ScalarAttributeType.N);
        BackfillWorker worker = worker("per-item");
        BackfillWorker.Prepared prepared = worker.prepare(request(empty, Map.of("ttlAttribute", "ttl", "segments", 4)), EXECUTION);

        List<BackfillWorker.PageResult> pages = scanAll(worker, prepared);

        assertThat(pages).hasSize(4).allSatisfy(page -> assertThat(page.page()).isEqualTo(BackfillCounts.NONE));
        assertThat(worker.finish(prepared.run())).satisfies(finished -> {
            assertThat(finished.complete()).isTrue();
            assertThat(finished.totals()).isEqualTo(BackfillCounts.NONE);
        });
        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void prepare_refusesWhatCannotWork_sayingWhatToDo() {
        String noTtl = table + "-nottl";
        createTable(noTtl, "pk", "sk", ScalarAttributeType.N);
        BackfillWorker worker = worker("per-item");
        BackfillWorker onlyOrders = new BackfillWorker(new DynamoDbTableReader(dynamoDb), new DynamoDbBackfillProgress(dynamoDb,
                BackfillProgressTable.LOCAL_TABLE_NAME), scheduling("per-item"),
                clock, clock, new ThrottleBackoff(clock, clock, new Random(1)),
                heard, Optional.of("orders"), Optional.empty());

        assertThatThrownBy(() -> worker.prepare(request(noTtl, Map.of()), EXECUTION)).isInstanceOf(BackfillInputException.class)
                .hasMessageContaining("has no TTL enabled").hasMessageContaining("ttlAttribute");
        assertThatThrownBy(() -> worker.prepare(request("no-such-table", Map.of()), EXECUTION))
                .isInstanceOf(BackfillInputException.class).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> onlyOrders.prepare(request(table, Map.of()), EXECUTION))
                .isInstanceOf(BackfillInputException.class).hasMessageContaining("serves table orders");
        BackfillWorker onlyThis = new BackfillWorker(new DynamoDbTableReader(dynamoDb), new DynamoDbBackfillProgress(dynamoDb,
                BackfillProgressTable.LOCAL_TABLE_NAME), scheduling("per-item"), clock, clock,
                new ThrottleBackoff(clock, clock, new Random(1)), heard, Optional.of(table), Optional.empty());
        assertThat(onlyThis.prepare(request(table, Map.of()), EXECUTION).run().table()).as("its own table").isEqualTo(table);
    }

    @Test
    void anOversizedKey_isSkippedAndToldOnce_andTheRestOfItsPageIsScheduled() {
        String huge = "k".repeat(ItemKey.MAX_PARTITION_KEY_BYTES + 1);
        TableReader oneBadKey = new TableReader() {
            @Override
            public TableShape describe(String name) {
                return new TableShape(List.of("pk"), Optional.of("ttl"));
            }

            @Override
            public ScannedPage scan(String name, int segment, int segments, List<String> keys, String ttl, ItemKey after,
                    int limit) {
                AttributeText due = AttributeText.n(Long.toString(NOW.getEpochSecond() + 600));
                return new ScannedPage(List.of(new ScannedItem(ItemKey.of(Map.of("pk", AttributeText.s("ok-1"))), due),
                        new ScannedItem(ItemKey.of(Map.of("pk", AttributeText.s(huge))), due),
                        new ScannedItem(ItemKey.of(Map.of("pk", AttributeText.s("ok-2"))), due)), null);
            }
        };
        BackfillWorker worker = new BackfillWorker(oneBadKey, new DynamoDbBackfillProgress(dynamoDb,
                BackfillProgressTable.LOCAL_TABLE_NAME), scheduling("per-item"),
                clock, clock, new ThrottleBackoff(clock, clock, new Random(3)), heard, Optional.empty(), Optional.empty());
        BackfillWorker.Prepared prepared = worker.prepare(request(table + "-fake", Map.of("segments", 1)), EXECUTION);

        BackfillWorker.PageResult page = worker.scanPage(prepared.run(), 0, Duration.ZERO);

        assertThat(page.page()).isEqualTo(new BackfillCounts(3, 2, 0, 1));
        assertThat(page.done()).isTrue();
        assertThat(executions.executions()).hasSize(2);
        assertThat(heard.skipped).containsExactly(new Skipped(ItemKey.of(Map.of("pk", AttributeText.s(huge))), Reason.KEY_NOT_VALID));
    }

    @Test
    void request_readsDefaults_andRefusesBadFieldsByName() {
        BackfillRequest defaults = BackfillRequest.fromInput(Map.of("table", "orders"));
        assertThat(defaults).isEqualTo(new BackfillRequest("orders", Optional.empty(), 8, 1000, 100.0, false));

        assertThatThrownBy(() -> BackfillRequest.fromInput(Map.of("tabel", "orders")))
                .isInstanceOf(BackfillInputException.class).hasMessageContaining("Unknown").hasMessageContaining("tabel");
        assertThatThrownBy(() -> BackfillRequest.fromInput(Map.of("table", "orders", "segments", 41)))
                .hasMessageContaining("\"segments\" must be a whole number from 1 to 40, got 41");
        assertThatThrownBy(() -> BackfillRequest.fromInput(Map.of("table", "orders", "startsPerSecond", -1)))
                .hasMessageContaining("startsPerSecond");
        assertThatThrownBy(() -> BackfillRequest.fromInput(Map.of("table", "x"))).hasMessageContaining("3-255");
        assertThat(BackfillRequest.successorInput(Map.of("table", "orders", "restart", true)))
                .isEqualTo(Map.of("table", "orders", "contract", 1));
        assertThat(BackfillRequest.fromInput(Map.of("table", "orders", "contract", 1)).table()).isEqualTo("orders");
        assertThatThrownBy(() -> BackfillRequest.fromInput(Map.of("table", "orders", "contract", 2)))
                .isInstanceOf(BackfillInputException.class).hasMessageContaining("backfill execution input")
                .hasMessageContaining("version 2");
        assertThatThrownBy(() -> BackfillRequest.fromInput(Map.of("table", "orders", "restart", "yes")))
                .isInstanceOf(BackfillInputException.class).hasMessageContaining("\"restart\" must be true or false");
        assertThat(BackfillRequest.fromInput(Map.of("table", "orders", "segments", 40, "pageSize", 10_000, "restart", true)))
                .as("the largest values allowed").isEqualTo(new BackfillRequest("orders", Optional.empty(), 40, 10_000, 100.0, true));
    }

    @Test
    void run_pageLimit_fitsThePageIntoItsTimeAtTheSegmentsRate() {
        BackfillRun run = new BackfillRun("r", "t", 8, "ttl", List.of("pk"), 1000, 8, "per-item", NOW, null);

        // 1 start a second per segment for 120 s: 120 items a page, not 1,000.
        assertThat(run.pageLimit()).isEqualTo(120);
        assertThat(new BackfillRun("r", "t", 8, "ttl", List.of("pk"), 1000, 0, "per-item", NOW, null).pageLimit()).isEqualTo(1000);
    }

    private static List<Map<String, AttributeValue>> indexOf(String table) {
        return dynamoDb.scan(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME)).items().stream()
                .filter(item -> item.get(ScheduleIndexTable.PARTITION_KEY).s().startsWith(table + "|"))
                .sorted((a, b) -> (a.get(ScheduleIndexTable.PARTITION_KEY).s() + a.get(ScheduleIndexTable.SORT_KEY).s())
                        .compareTo(b.get(ScheduleIndexTable.PARTITION_KEY).s() + b.get(ScheduleIndexTable.SORT_KEY).s()))
                .toList();
    }

    private record Skipped(ItemKey key, Reason reason) {
    }

    /** What the worker told its listener. */
    private static final class Recorded implements BackfillListener {
        final List<Skipped> skipped = Collections.synchronizedList(new ArrayList<>());
        final List<SegmentProgress> saved = Collections.synchronizedList(new ArrayList<>());
        final List<String> told = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void prepared(BackfillRun run, boolean resumed, int segmentsLeft) {
            told.add("prepared " + (resumed ? "resumed " : "new ") + segmentsLeft);
        }

        @Override
        public void pageOverlapped(BackfillRun run, int segment) {
            told.add("overlapped " + segment);
        }

        @Override
        public void finished(BackfillRun run, BackfillCounts totals) {
            told.add("finished " + totals.scanned());
        }

        @Override
        public void itemSkipped(BackfillRun run, ItemKey key, Reason reason, String detail) {
            skipped.add(new Skipped(key, reason));
        }

        @Override
        public void pageSaved(BackfillRun run, SegmentProgress segment, BackfillCounts page, Map<Reason, Long> skippedBy) {
            saved.add(segment);
        }
    }
}
