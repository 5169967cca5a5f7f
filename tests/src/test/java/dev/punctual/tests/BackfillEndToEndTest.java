package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.HistoryEvent;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryExecutions;
import dev.punctual.tests.support.ExpiryTable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * The backfill workflow end to end on the real embedded runtime, on a manual timer: DynamoDB Local,
 * the engine running {@code backfill.asl.json}, the real backfill function in-process, and then the
 * mode's own executions deleting what the backfill scheduled. Each table has no stream, so only the
 * backfill can schedule its items: they were written before Punctual was attached. Every backfill is
 * started as the AWS CLI would, over the Step Functions API, with only {@code {"table": ...}} or the
 * options a test needs.
 *
 * <p>Time is skipped ({@link SkippedTime}): it moves from one instant the runtime owes work at to the next
 * and stands still at each until all due there is done, so items due hours out are deleted in milliseconds,
 * each while the runtime's clock reads its TTL second, and a run's work all happens at the instant it began.
 * The two runs paced at one start a second cannot be settled mid-page (see {@link #awaitPaced}); their time
 * moves to each start the run sleeps for, and what those tests check is what gets scheduled, not when.
 */
class BackfillEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * How far the runtime's time may move while a test waits for an unpaced backfill run: a guard on the
     * runtime's clock against a run that never ends, not a tolerance. Such a run takes no time on that
     * clock unless its Task is retried (backoffs of up to a minute).
     */
    private static final Duration RUN_LIMIT = Duration.ofMinutes(5);
    /** The longest a run paced at one start a second sleeps between two starts. */
    private static final Duration PACING = Duration.ofSeconds(1);
    /** Wall time a paced run may take to get where a test waits for it: a hang guard, not a tolerance. */
    private static final Duration PACED_WAIT = Duration.ofSeconds(90);

    private ManualTimer timer;
    private SkippedTime time;
    private LocalRuntime runtime;
    private SfnClient sfn;

    private void start(ExpiryMode mode) {
        start(mode, null);
    }

    /** {@link #start(ExpiryMode)} on {@code dataDirectory} (none: everything in memory). */
    private void start(ExpiryMode mode, Path dataDirectory) {
        // The runtime's clock starts a day ahead of the wall clock. Every TTL here is computed on the runtime's
        // clock and lies within a few hours of its start, past ones included, so none of them is reached on
        // DynamoDB Local's wall clock while a test runs: its native TTL could not delete a test's item even if
        // its TTL job ran (the runtime stops it at start). Started at the wall clock's now instead, the wall
        // clock would run ahead while time stands still here, and reach an item's TTL before this clock does.
        timer = ManualTimer.startingAt(Instant.now().plus(Duration.ofDays(1)));
        // The tables have no stream, so the stream handler (and its cancellation of stale executions) sees none.
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode).withTimer(timer).withDataDirectory(dataDirectory));
        time = SkippedTime.of(runtime);
        sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions());
    }

    /**
     * Stops the runtime as {@code punctual local} stops (whatever is in flight is left to the journal), and
     * starts it again on {@code dataDirectory}, its time going on from the instant it stopped at.
     */
    private void restart(ExpiryMode mode, Path dataDirectory) {
        Instant stoppedAt = time.now();
        sfn.close();
        runtime.close();
        timer = ManualTimer.startingAt(stoppedAt);
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode).withTimer(timer).withDataDirectory(dataDirectory));
        time = SkippedTime.of(runtime);
        sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions());
    }

    @AfterEach
    void stop() {
        if (sfn != null) {
            sfn.close();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    private long now() {
        return time.now().getEpochSecond();
    }

    /**
     * Moves the runtime's time from each instant it owes work at to the next, settled at each, until
     * {@code condition} holds; fails if it does not by {@code limit} on the runtime's clock.
     */
    private void advanceUntil(String description, Instant limit, BooleanSupplier condition) {
        time.settle();
        while (!condition.getAsBoolean()) {
            Instant next = timer.nextWorkWakeUp();
            assertThat(next).as("%s by %s on the runtime's clock (now %s): nothing owed before then", description, limit, time.now())
                    .isNotNull().isBeforeOrEqualTo(limit);
            time.advanceTo(next);
        }
    }

    /**
     * Waits until {@code condition} holds while a paced run works ({@code startsPerSecond}), moving the
     * runtime's time only to the next start the run sleeps for. The function sleeps on the runtime's timer in
     * a pool of its own while the engine's Task waits for it, which the runtime cannot tell from work under
     * way, so it never settles mid-page and {@link #advanceUntil} cannot move it. Here time moves whenever
     * work is owed within {@link #PACING}: nothing else is that close while these runs go (their items are due
     * ten minutes or more out), so each move wakes the run for one start, at its instant, and a slow machine
     * makes the run slower in wall time, never longer on the runtime's clock.
     */
    private void awaitPaced(String description, BooleanSupplier condition) {
        Await.until(description, PACED_WAIT, () -> {
            Instant next = timer.nextWorkWakeUp();
            if (next != null && !next.isAfter(time.now().plus(PACING))) {
                timer.skipToNextWork(next);
            }
            return condition.getAsBoolean();
        });
    }

    /** A table that existed before Punctual: TTL on {@code expiresAt}, no stream, so nothing but a backfill schedules it. */
    private String legacyTable(String prefix, Map<String, Long> ttls) {
        String name = prefix + "-" + Long.toString(System.nanoTime() % 1_000_000, 36);
        DynamoDbClient dynamoDb = runtime.dynamoDb();
        dynamoDb.createTable(r -> r.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(k -> k.attributeName(ExpiryTable.KEY).keyType(KeyType.HASH))
                .attributeDefinitions(a -> a.attributeName(ExpiryTable.KEY).attributeType(ScalarAttributeType.S)));
        dynamoDb.updateTimeToLive(r -> r.tableName(name).timeToLiveSpecification(t -> t.enabled(true).attributeName(ExpiryTable.TTL)));
        ExpiryTable.batchWrite(dynamoDb, name, ttls);
        runtime.observations().deletions().track(name);
        return name;
    }

    private String backfill(Map<String, Object> input) {
        try {
            String json = JSON.writeValueAsString(input);
            return sfn.startExecution(r -> r.stateMachineArn(LocalDefaults.backfillStateMachineArn()).input(json)).executionArn();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private ExecutionDescription awaitClosed(String executionArn) {
        advanceUntil("backfill " + executionArn + " closed", time.now().plus(RUN_LIMIT), () -> isClosed(executionArn));
        return runtime.stepFunctionsEngine().describeExecution(executionArn);
    }

    /** {@link #awaitClosed} for a run started while a paced one may still be working: see {@link #awaitPaced}. */
    private ExecutionDescription awaitClosedWhilePaced(String executionArn) {
        awaitPaced("backfill " + executionArn + " closed", () -> isClosed(executionArn));
        return runtime.stepFunctionsEngine().describeExecution(executionArn);
    }

    private boolean isClosed(String executionArn) {
        return runtime.stepFunctionsEngine().describeExecution(executionArn).status().isClosed();
    }

    private static JsonNode output(ExecutionDescription execution) throws IOException {
        assertThat(execution.status()).as("%s: %s %s", execution.name(), execution.error(), execution.cause())
                .isEqualTo(ExecutionStatus.SUCCEEDED);
        return JSON.readTree(execution.output());
    }

    private Set<String> ids(String table) {
        return runtime.dynamoDb().scan(r -> r.tableName(table).consistentRead(true)).items().stream()
                .map(item -> item.get(ExpiryTable.KEY).s()).collect(Collectors.toSet());
    }

    private List<String> executionNames(String stateMachineArn) {
        List<String> names = new ArrayList<>();
        String token = null;
        do {
            var page = runtime.stepFunctionsEngine().listExecutions(stateMachineArn, null, 1000, token);
            page.items().stream().map(ExecutionSummary::name).forEach(names::add);
            token = page.nextToken();
        } while (token != null);
        return names;
    }

    /** A nanosecond before the earliest of {@code ttls}: time moved no further has reached none of them. */
    private static Instant beforeFirst(Map<String, Long> ttls) {
        return Instant.ofEpochSecond(Collections.min(ttls.values())).minusNanos(1);
    }

    /** The end of the latest of {@code ttls}' seconds. */
    private static Instant afterLast(Map<String, Long> ttls) {
        return Instant.ofEpochSecond(Collections.max(ttls.values()) + 1);
    }

    /**
     * Each item deleted by Punctual while the runtime's clock read its TTL second: never before its TTL, and
     * not a second late either, as time stood at each instant until all due there was done.
     */
    private void assertEachDeletedInItsOwnSecond(String table, Map<String, Long> ttls) {
        ttls.forEach((id, ttl) -> {
            Optional<Instant> deletedAt = runtime.observations().deletions().deletedAt(table, Map.of(ExpiryTable.KEY, AttributeValue.fromS(id)));
            assertThat(deletedAt).as("%s deleted by Punctual", id).isPresent();
            assertThat(deletedAt.get()).as("%s deleted inside its TTL second %s, never before it", id, Instant.ofEpochSecond(ttl))
                    .isAfterOrEqualTo(Instant.ofEpochSecond(ttl)).isBefore(Instant.ofEpochSecond(ttl + 1));
        });
    }

    @Test
    void perItem_onlyTheTableInTheInput_schedulesEveryItemUnderItsStreamName_deletesPastTtlsAtOnce_andTheRestExpireOnTime()
            throws IOException {
        start(ExpiryMode.PER_ITEM);
        Map<String, Long> later = new LinkedHashMap<>();
        for (int i = 0; i < 30; i++) {
            later.put("later-" + i, now() + 3600 + i);
        }
        Map<String, Long> past = Map.of("past-0", now() - 60, "past-1", now() - 3600);
        Map<String, Long> all = new HashMap<>(later);
        all.putAll(past);
        String table = legacyTable("bf-item", all);
        runtime.dynamoDb().putItem(r -> r.tableName(table).item(Map.of(ExpiryTable.KEY, AttributeValue.fromS("text-ttl"),
                ExpiryTable.TTL, AttributeValue.fromS("tomorrow"))));
        runtime.dynamoDb().putItem(r -> r.tableName(table).item(Map.of(ExpiryTable.KEY, AttributeValue.fromS("no-ttl"))));

        JsonNode result = output(awaitClosed(backfill(Map.of("table", table))));

        assertThat(result.path(BackfillWorkflow.OUTCOME).asText()).isEqualTo(BackfillWorkflow.OUTCOME_BACKFILLED);
        assertThat(result.path(BackfillWorkflow.MODE).asText()).isEqualTo("per-item");
        assertThat(result.path(BackfillWorkflow.SEGMENTS).asInt()).isEqualTo(BackfillWorkflow.DEFAULT_SEGMENTS);
        assertThat(result.path(BackfillWorkflow.SCANNED).asLong()).isEqualTo(34);
        assertThat(result.path(BackfillWorkflow.SCHEDULED).asLong()).isEqualTo(30);
        assertThat(result.path(BackfillWorkflow.DELETED_NOW).asLong()).isEqualTo(2);
        assertThat(result.path(BackfillWorkflow.SKIPPED).asLong()).isEqualTo(2);
        Set<String> expected = all.entrySet().stream()
                .map(e -> ExpiryExecutions.nameOf(table, e.getKey(), Long.toString(e.getValue()))).collect(Collectors.toSet());
        assertThat(executionNames(LocalDefaults.stateMachineArn())).containsExactlyInAnyOrderElementsOf(expected);

        advanceUntil("past-TTL items deleted", beforeFirst(later), () -> !ids(table).contains("past-0")
                && !ids(table).contains("past-1"));
        assertThat(ids(table)).as("time still before every later TTL").containsAll(later.keySet());

        time.advanceTo(afterLast(later));
        assertThat(ids(table)).as("every item with a TTL deleted").containsExactlyInAnyOrder("text-ttl", "no-ttl");
        assertEachDeletedInItsOwnSecond(table, later);
        assertThat(runtime.observations().deletions().count(table)).as("each item with a TTL deleted once").isEqualTo(all.size());
    }

    @Test
    void windowed_indexesItemsIntoBuckets_noExecutionPerItem_andASecondRunChangesNothing() throws IOException {
        start(ExpiryMode.WINDOWED);
        Map<String, Long> ttls = new LinkedHashMap<>();
        long minute = (now() / 60 + 10) * 60;
        long hour = (now() / 3600 + 3) * 3600;
        for (int i = 0; i < 10; i++) {
            ttls.put("w-" + i, now() + 30);                // one minute bucket, 30 s out (minutes are the finest level)
            ttls.put("w-" + (10 + i), minute + 3 * i);    // one minute bucket, 10 to 11 minutes out
            ttls.put("w-" + (20 + i), hour + 60 * i);     // one hour bucket, 2 to 3 hours out
            ttls.put("w-" + (30 + i), hour + 1800 + i);   // the same hour bucket
        }
        ttls.put("past", now() - 5);
        String table = legacyTable("bf-win", ttls);
        Map<String, Long> future = new HashMap<>(ttls);
        future.remove("past");

        JsonNode first = output(awaitClosed(backfill(Map.of("table", table, "segments", 3))));
        List<Map<String, AttributeValue>> index = indexOf(table);
        Set<String> buckets = new HashSet<>(executionNames(runtime.mode().windowed().orElseThrow().bucketStateMachineArn()));

        assertThat(first.path(BackfillWorkflow.MODE).asText()).isEqualTo("windowed");
        assertThat(first.path(BackfillWorkflow.SCHEDULED).asLong()).isEqualTo(40);
        assertThat(first.path(BackfillWorkflow.DELETED_NOW).asLong()).isEqualTo(1);
        assertThat(executionNames(LocalDefaults.stateMachineArn())).as("no per-item execution").isEmpty();
        // Segments scan in parallel, so a minute's items can reach it out of order: one found after the
        // minute was planned for a later second goes to the minute's early part (<minute>-e), never to a
        // bucket of its own.
        Set<String> wholeBuckets = buckets.stream().map(name -> name.replaceFirst("-e$", "")).collect(Collectors.toSet());
        assertThat(wholeBuckets).as("one bucket per group of 40 items: two minutes, one hour").hasSize(3)
                .filteredOn(name -> name.contains("-minute-")).hasSize(2);
        assertThat(wholeBuckets).anyMatch(name -> name.contains("-hour-"));
        assertThat(buckets).filteredOn(name -> name.endsWith("-e")).allMatch(name -> name.contains("-minute-"));
        assertThat(index.stream().mapToInt(chunk -> chunk.get(ScheduleIndexTable.ENTRIES).l().size()).sum())
                .as("each item indexed once").isEqualTo(40);
        advanceUntil("the past-TTL item deleted at once", beforeFirst(future), () -> !ids(table).contains("past"));

        JsonNode second = output(awaitClosed(backfill(Map.of("table", table, "segments", 3))));

        assertThat(second.path(BackfillWorkflow.RUN).asText()).as("a finished run is followed by a new one")
                .isNotEqualTo(first.path(BackfillWorkflow.RUN).asText());
        assertThat(second.path(BackfillWorkflow.SCHEDULED).asLong()).isEqualTo(40);
        assertThat(indexOf(table)).as("the same chunks, named by their content's digest").isEqualTo(index);
        assertThat(executionNames(runtime.mode().windowed().orElseThrow().bucketStateMachineArn())).as("the same buckets, named by their instant")
                .containsExactlyInAnyOrderElementsOf(buckets);

        time.advanceTo(afterLast(future));
        assertThat(ids(table)).as("every item deleted").isEmpty();
        assertEachDeletedInItsOwnSecond(table, future);
        assertThat(runtime.observations().deletions().count(table)).as("each item deleted once").isEqualTo(ttls.size());
    }

    @Test
    void perItem_stoppedHalfway_andStartedAgain_resumesFromItsSegments_schedulingEverythingOnce() throws IOException {
        start(ExpiryMode.PER_ITEM);
        Map<String, Long> ttls = new LinkedHashMap<>();
        for (int i = 0; i < 60; i++) {
            ttls.put("s-" + i, now() + 7200 + i);
        }
        String table = legacyTable("bf-stop", ttls);
        // One start a second for one segment, in pages of 5: the run moves only as the test moves time.
        Map<String, Object> input = Map.of("table", table, "segments", 1, "pageSize", 5, "startsPerSecond", 1);
        String first = backfill(input);
        awaitPaced("a third of the items scheduled", () -> executionNames(LocalDefaults.stateMachineArn()).size() >= 20);

        sfn.stopExecution(r -> r.executionArn(first).error("Operator.Stop").cause("stopped halfway by the test"));
        assertThat(runtime.stepFunctionsEngine().describeExecution(first).status()).isEqualTo(ExecutionStatus.ABORTED);
        int scheduledWhenStopped = executionNames(LocalDefaults.stateMachineArn()).size();
        assertThat(scheduledWhenStopped).isLessThan(60);
        long startsBefore = runtime.stepFunctionsEngine().startExecutionCalls();

        JsonNode resumed = output(awaitClosedWhilePaced(backfill(Map.of("table", table))));

        assertThat(resumed.path(BackfillWorkflow.OUTCOME).asText()).isEqualTo(BackfillWorkflow.OUTCOME_BACKFILLED);
        assertThat(resumed.path(BackfillWorkflow.SEGMENTS).asInt()).as("the stopped run's segments, not the default").isEqualTo(1);
        assertThat(resumed.path(BackfillWorkflow.SCANNED).asLong()).as("each item read once over the run").isEqualTo(60);
        Set<String> expected = ttls.entrySet().stream()
                .map(e -> ExpiryExecutions.nameOf(table, e.getKey(), Long.toString(e.getValue()))).collect(Collectors.toSet());
        assertThat(executionNames(LocalDefaults.stateMachineArn())).containsExactlyInAnyOrderElementsOf(expected);
        // The second execution went on from the saved position: its StartExecution calls cover the items left,
        // plus at most the page in flight when the first was stopped, plus its own start.
        assertThat(runtime.stepFunctionsEngine().startExecutionCalls() - startsBefore)
                .isLessThanOrEqualTo(60 - scheduledWhenStopped + 5 + 1);
    }

    /**
     * The runtime itself stopped while a page is in flight (its function asleep between two paced starts), then
     * started again on its data directory: the engine resumes the run, and the page's Task, run again from the
     * Map's start, invokes the backfill function, which is served by then. It once answered
     * {@code Lambda.ResourceNotFoundException} instead: the engine resumed the recovered executions while the
     * runtime was still being wired, before the function was registered, and only the Task's Retry saved the
     * run, a jittered back-off later.
     */
    @Test
    void perItem_runtimeStoppedMidPage_andStartedAgainOnItsDataDirectory_resumesThePage_withoutAFailedInvocation(@TempDir Path data)
            throws IOException {
        start(ExpiryMode.PER_ITEM, data);
        Map<String, Long> ttls = new LinkedHashMap<>();
        for (int i = 0; i < 9; i++) {
            ttls.put("r-" + i, now() + 7200 + i);
        }
        String table = legacyTable("bf-restart", ttls);
        // Pages of 3 at one start a second: the run moves only as the test moves time.
        String backfill = backfill(Map.of("table", table, "segments", 1, "pageSize", 3, "startsPerSecond", 1));
        awaitPaced("the second page begun", () -> executionNames(LocalDefaults.stateMachineArn()).size() >= 4);
        assertThat(executionNames(LocalDefaults.stateMachineArn())).as("stopped before the second page ended").hasSizeLessThan(6);

        restart(ExpiryMode.PER_ITEM, data);
        runtime.observations().deletions().track(table);
        assertThat(runtime.stepFunctionsEngine().recovery().executionsResumed()).as("the backfill and the executions it started")
                .isGreaterThanOrEqualTo(5);
        Await.until("the resumed page's Task invoked the backfill function, or failed", PACED_WAIT,
                () -> runtime.stepFunctionsEngine().startExecutionCalls() > 0 || !failedTasks(backfill).isEmpty());
        assertThat(failedTasks(backfill)).as("the resumed page's invocations that failed").isEmpty();

        awaitPaced("the resumed backfill closed", () -> isClosed(backfill));
        JsonNode result = output(runtime.stepFunctionsEngine().describeExecution(backfill));
        assertThat(result.path(BackfillWorkflow.OUTCOME).asText()).isEqualTo(BackfillWorkflow.OUTCOME_BACKFILLED);
        Set<String> expected = ttls.entrySet().stream()
                .map(e -> ExpiryExecutions.nameOf(table, e.getKey(), Long.toString(e.getValue()))).collect(Collectors.toSet());
        assertThat(executionNames(LocalDefaults.stateMachineArn())).containsExactlyInAnyOrderElementsOf(expected);
        time.advanceTo(afterLast(ttls));
        assertThat(ids(table)).as("every item deleted").isEmpty();
        assertEachDeletedInItsOwnSecond(table, ttls);
        assertThat(runtime.observations().deletions().count(table)).as("each item deleted once").isEqualTo(ttls.size());
    }

    /** The {@code TaskFailed} events of {@code executionArn}'s history, with their error and cause. */
    private List<String> failedTasks(String executionArn) {
        List<String> failed = new ArrayList<>();
        String token = null;
        do {
            var page = runtime.stepFunctionsEngine().getExecutionHistory(executionArn, 1000, token, false);
            page.items().stream().filter(event -> event.type().equals("TaskFailed"))
                    .map(event -> event.timestamp() + " " + event.details()).forEach(failed::add);
            token = page.nextToken();
        } while (token != null);
        return failed;
    }

    @Test
    void windowed_stoppedHalfway_andStartedAgain_indexesEveryItemExactlyOnce() throws IOException {
        start(ExpiryMode.WINDOWED);
        Map<String, Long> ttls = new LinkedHashMap<>();
        for (int i = 0; i < 60; i++) {
            ttls.put("s-" + i, now() + 600 + 60L * i);   // one minute bucket each: a bucket start per item, paced
        }
        String table = legacyTable("bf-wstop", ttls);
        String first = backfill(Map.of("table", table, "segments", 1, "pageSize", 5, "startsPerSecond", 1));
        awaitPaced("some buckets started", () -> executionNames(runtime.mode().windowed().orElseThrow().bucketStateMachineArn()).size() >= 15);
        sfn.stopExecution(r -> r.executionArn(first));
        assertThat(indexedKeys(table)).hasSizeLessThan(60);

        output(awaitClosedWhilePaced(backfill(Map.of("table", table))));

        List<String> keys = indexedKeys(table);
        assertThat(keys).as("every item indexed, none twice").hasSize(60).doesNotHaveDuplicates();
        assertThat(executionNames(LocalDefaults.stateMachineArn())).as("no per-item execution").isEmpty();
    }

    @Test
    void aRunLongerThanOneExecutionsHistory_continuesAsASuccessor_whichFinishesIt() throws IOException {
        start(ExpiryMode.PER_ITEM);
        int segments = BackfillWorkflow.MAX_SEGMENTS;
        // Pages of one item: each segment needs more pages than one execution gives it (some segments hold fewer
        // items than the average; enough hold more).
        int items = segments * (BackfillWorkflow.pagesPerSegment(segments) + 8);
        Map<String, Long> ttls = new LinkedHashMap<>();
        for (int i = 0; i < items; i++) {
            ttls.put("c-" + i, now() + 86_400);
        }
        String table = legacyTable("bf-long", ttls);

        String first = backfill(Map.of("table", table, "segments", segments, "pageSize", 1, "startsPerSecond", 0));
        JsonNode continued = output(awaitClosed(first));

        assertThat(continued.path(BackfillWorkflow.OUTCOME).asText()).isEqualTo(BackfillWorkflow.OUTCOME_CONTINUED);
        String successor = continued.path(BackfillWorkflow.SUCCESSOR).asText();
        assertThat(historySize(first)).as("kept under the 25,000 events of a Standard execution")
                .isGreaterThan(10_000).isLessThan(25_000);
        JsonNode finished = output(awaitClosed(successor));
        assertThat(finished.path(BackfillWorkflow.OUTCOME).asText()).isEqualTo(BackfillWorkflow.OUTCOME_BACKFILLED);
        assertThat(finished.path(BackfillWorkflow.SCANNED).asLong()).isEqualTo(items);
        assertThat(executionNames(LocalDefaults.stateMachineArn())).hasSize(items);
    }

    @Test
    void aTableWithNothingToDo_finishesCleanly() throws IOException {
        start(ExpiryMode.PER_ITEM);
        String table = legacyTable("bf-empty", Map.of());

        String execution = backfill(Map.of("table", table));
        JsonNode result = output(awaitClosed(execution));

        assertThat(result.path(BackfillWorkflow.COMPLETE).asBoolean()).isTrue();
        assertThat(result.path(BackfillWorkflow.SCANNED).asLong()).isZero();
        assertThat(executionNames(LocalDefaults.stateMachineArn())).isEmpty();
        assertThat(history(execution)).noneMatch(event -> event.type().endsWith("Failed"));
    }

    @Test
    void aTableThatDoesNotExist_failsAtOnceWithTheReason_notRetried() {
        start(ExpiryMode.PER_ITEM);

        String execution = backfill(Map.of("table", "no-such-table"));
        ExecutionDescription failed = awaitClosed(execution);

        assertThat(failed.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(failed.error()).isEqualTo(BackfillWorkflow.ERROR_INPUT);
        assertThat(failed.cause()).contains("Table no-such-table does not exist");
        assertThat(history(execution).stream().filter(event -> event.type().equals("LambdaFunctionFailed")
                || event.type().equals("TaskFailed"))).hasSize(1);
    }

    private int historySize(String executionArn) {
        int size = 0;
        String token = null;
        do {
            var page = runtime.stepFunctionsEngine().getExecutionHistory(executionArn, 1000, token, false);
            size += page.items().size();
            token = page.nextToken();
        } while (token != null);
        return size;
    }

    private List<HistoryEvent> history(String executionArn) {
        return runtime.stepFunctionsEngine().getExecutionHistory(executionArn, 1000, null, false).items();
    }

    private List<Map<String, AttributeValue>> indexOf(String table) {
        return runtime.dynamoDb().scan(r -> r.tableName(ScheduleIndexTable.LOCAL_TABLE_NAME).consistentRead(true)).items().stream()
                .filter(item -> item.get(ScheduleIndexTable.PARTITION_KEY).s().startsWith(table + "|"))
                .sorted((a, b) -> (a.get(ScheduleIndexTable.PARTITION_KEY).s() + a.get(ScheduleIndexTable.SORT_KEY).s())
                        .compareTo(b.get(ScheduleIndexTable.PARTITION_KEY).s() + b.get(ScheduleIndexTable.SORT_KEY).s()))
                .toList();
    }

    private List<String> indexedKeys(String table) {
        return indexOf(table).stream().flatMap(chunk -> chunk.get(ScheduleIndexTable.ENTRIES).l().stream())
                .map(entry -> entry.m().get(ScheduleIndexTable.ENTRY_KEY).m().get(ExpiryTable.KEY).s()).toList();
    }
}
