package dev.punctual.local.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class StreamPollerTest {

    /** How long a test moving a manual timer waits for the poller to do what it checks. */
    private static final Duration WAIT = Duration.ofSeconds(10);
    /**
     * How long the pollers on the system clock may show no work (records read, filtered, handed to the
     * handler, handled or dead-lettered, invocations, tables watched) before a wait gives up.
     */
    private static final Duration STALL = Duration.ofSeconds(15);
    /** The mapping's poll interval in these tests. */
    private static final Duration POLL = Duration.ofMillis(20);

    private static final String TTL = "expiresAt";
    private static LocalTables local;

    private final List<StreamPoller> pollers = new ArrayList<>();

    @TempDir
    Path data;

    @BeforeAll
    static void startDynamoDbLocal() {
        local = new LocalTables();
    }

    @AfterAll
    static void stopDynamoDbLocal() {
        local.close();
    }

    @AfterEach
    void closePollers() {
        pollers.forEach(StreamPoller::close);
    }

    /** A poller on {@code timer}, or on a timer of its own (the system clock) when it is {@code null}. */
    private StreamPoller start(String table, RecordingHandler handler, MappingSettings.Builder settings, Path dataDirectory,
                               Timer timer) {
        StreamPoller poller = StreamPoller.builder()
                .dynamoDb(local.dynamoDb)
                .streams(local.streams)
                .handlerFactory(watched -> handler)
                .filterPatterns(watched -> StreamWiring.filterPatterns(watched.ttlAttribute(), true))
                .settings(settings.pollInterval(POLL).retryDelay(Duration.ZERO)
                        .discoveryInterval(Duration.ofMillis(100)).tableAllowList(Set.of(table)).build())
                .dataDirectory(dataDirectory)
                .timer(timer)
                .start();
        pollers.add(poller);
        return poller;
    }

    private StreamPoller start(String table, RecordingHandler handler, MappingSettings.Builder settings) {
        return start(table, handler, settings, null, null);
    }

    /**
     * Waits until {@code condition} holds while moving {@code timer} on by a poll interval at each
     * check: a poller on a manual timer paces, and looks at the batching window and record ages, only
     * as the test moves its time.
     */
    private static void awaitMovingTime(ManualTimer timer, String description, BooleanSupplier condition) {
        Await.until(description, WAIT, () -> {
            timer.advance(POLL);
            return condition.getAsBoolean();
        });
    }

    /**
     * Waits until {@code condition} holds for as long as this test's pollers on the system clock keep
     * working: fails only when none of their counters has moved for {@link #STALL}.
     */
    private void awaitPollers(Supplier<String> description, BooleanSupplier condition) {
        Await.untilProgressing(description, STALL, () -> pollers.stream().mapToLong(poller -> {
            StreamPollerMetrics.Snapshot work = poller.metrics().snapshot();
            return work.recordsRead() + work.recordsFiltered() + work.recordsInvoked() + work.recordsHandled()
                    + work.invocations() + work.failedInvocations() + work.recordsDeadLettered() + poller.watchedTables().size();
        }).sum(), condition);
    }

    private static List<String> ids(List<DynamodbStreamRecord> records) {
        return records.stream().map(r -> r.getDynamodb().getKeys().get("id").getS()).toList();
    }

    private static String sequence(DynamodbStreamRecord record) {
        return record.getDynamodb().getSequenceNumber();
    }

    @Test
    void trimHorizon_deliversEveryRecordInOrderPerItem() {
        String table = local.createTable(LocalTables.uniqueName("order"), true, TTL);
        local.put(table, "a", 100);
        local.put(table, "b", 100);
        local.put(table, "a", 200);
        RecordingHandler handler = new RecordingHandler();
        start(table, handler, MappingSettings.builder());
        local.put(table, "b", 300);
        local.put(table, "a", 300);

        awaitPollers(() -> "5 records, got " + handler.records().size(), () -> handler.records().size() == 5);

        List<DynamodbStreamRecord> records = handler.records();
        assertThat(ids(records)).containsExactly("a", "b", "a", "b", "a");
        assertThat(records).extracting(DynamodbStreamRecord::getEventName)
                .containsExactly("INSERT", "INSERT", "MODIFY", "MODIFY", "MODIFY");
        assertThat(records).extracting(r -> r.getDynamodb().getNewImage().get(TTL).getN())
                .containsExactly("100", "100", "200", "300", "300");
        List<java.math.BigInteger> sequences = records.stream().map(r -> new java.math.BigInteger(sequence(r))).toList();
        assertThat(sequences).isSorted();
    }

    @Test
    void filterCriteria_dropRecordsWithoutATtlAndStillMovePastThem() {
        String table = local.createTable(LocalTables.uniqueName("filter"), true, TTL);
        local.putWithout(table, "plain");
        local.put(table, "timed", 100);
        local.dynamoDb.putItem(b -> b.tableName(table).item(Map.of(
                "id", AttributeValue.fromS("typo"),
                TTL, AttributeValue.fromS("tomorrow"))));
        local.delete(table, "plain");
        local.delete(table, "timed");
        RecordingHandler handler = new RecordingHandler();
        StreamPoller poller = start(table, handler, MappingSettings.builder());

        // Records are counted as read and filtered before the handler is invoked with the rest, and as
        // invoked once it returns.
        awaitPollers(() -> "5 read, 2 filtered, 3 invoked: " + poller.metrics().snapshot(), () -> poller.metrics().snapshot().recordsRead() == 5
                && poller.metrics().snapshot().recordsFiltered() == 2 && poller.metrics().snapshot().recordsInvoked() == 3);

        assertThat(handler.records()).extracting(r -> r.getEventName() + ":" + r.getDynamodb().getKeys().get("id").getS())
                .containsExactly("INSERT:timed", "INSERT:typo", "REMOVE:timed");
        assertThat(poller.metrics().snapshot().recordsInvoked()).isEqualTo(3);
    }

    @Test
    void partialBatchFailure_retriesFromTheLowestFailedSequenceNumberOnly() {
        String table = local.createTable(LocalTables.uniqueName("partial"), true, TTL);
        for (int i = 0; i < 5; i++) {
            local.put(table, "item" + i, 100 + i);
        }
        RecordingHandler handler = new RecordingHandler((number, records) -> number == 1
                ? RecordingHandler.failing(sequence(records.get(4)), sequence(records.get(2)))
                : new StreamsEventResponse());
        StreamPoller poller = start(table, handler, MappingSettings.builder().batchSize(10));

        awaitPollers(() -> "2 invocations, got " + handler.sequenceBatches(), () -> handler.batches().size() == 2);

        List<String> first = handler.sequenceBatches().get(0);
        assertThat(first).hasSize(5);
        assertThat(handler.sequenceBatches().get(1)).containsExactlyElementsOf(first.subList(2, 5));
        awaitPollers(() -> "handled: the 2 before the failure, then the 3 retried; got " + poller.metrics().snapshot(), () -> poller.metrics().snapshot().recordsHandled() == 5);
        assertThat(poller.metrics().snapshot().recordsInvoked()).isEqualTo(8);
    }

    @Test
    void handlerException_retriesTheWholeBatch() {
        String table = local.createTable(LocalTables.uniqueName("throws"), true, TTL);
        local.put(table, "x", 1);
        local.put(table, "y", 2);
        RecordingHandler handler = new RecordingHandler((number, records) -> {
            if (number == 1) {
                throw new IllegalStateException("boom");
            }
            return null;
        });
        StreamPoller poller = start(table, handler, MappingSettings.builder());

        awaitPollers(() -> "2 invocations, got " + handler.sequenceBatches(), () -> handler.batches().size() == 2);

        assertThat(handler.sequenceBatches().get(1)).isEqualTo(handler.sequenceBatches().get(0)).hasSize(2);
        assertThat(poller.metrics().snapshot().failedInvocations()).isEqualTo(1);
    }

    @Test
    void unknownItemIdentifier_failsTheWholeBatch() {
        String table = local.createTable(LocalTables.uniqueName("unknown"), true, TTL);
        local.put(table, "x", 1);
        local.put(table, "y", 2);
        RecordingHandler handler = new RecordingHandler((number, records) ->
                number == 1 ? RecordingHandler.failing("") : new StreamsEventResponse(List.of()));
        start(table, handler, MappingSettings.builder());

        awaitPollers(() -> "2 invocations, got " + handler.sequenceBatches(), () -> handler.batches().size() == 2);

        assertThat(handler.sequenceBatches().get(1)).isEqualTo(handler.sequenceBatches().get(0)).hasSize(2);
    }

    @Test
    void bisect_splitsFailedBatchesUntilThePoisonRecordIsAlone_thenDeadLettersIt() {
        String table = local.createTable(LocalTables.uniqueName("bisect"), true, TTL);
        for (int i = 1; i <= 4; i++) {
            local.put(table, "r" + i, i);
        }
        RecordingHandler handler = new RecordingHandler((number, records) -> {
            if (ids(records).contains("r3")) {
                throw new IllegalStateException("poison");
            }
            return new StreamsEventResponse();
        });
        StreamPoller poller = start(table, handler, MappingSettings.builder()
                .bisectBatchOnFunctionError(true).maximumRetryAttempts(1));

        awaitPollers(() -> "6 invocations, got " + handler.batches().size(), () -> handler.batches().size() == 6);

        assertThat(handler.batches()).extracting(StreamPollerTest::ids).containsExactly(
                List.of("r1", "r2", "r3", "r4"), List.of("r1", "r2"), List.of("r3", "r4"), List.of("r3"), List.of("r3"),
                List.of("r4"));
        awaitPollers(() -> "one dead letter", () -> poller.deadLetters().list().size() == 1);
        DeadLetter letter = poller.deadLetters().list().get(0);
        assertThat(ids(letter.records())).containsExactly("r3");
        assertThat(letter.condition()).isEqualTo(DeadLetter.RETRY_ATTEMPTS_EXHAUSTED);
        assertThat(letter.message().at("/requestContext/approximateInvokeCount").asInt()).isEqualTo(4);
        assertThat(letter.message().at("/responseContext/functionError").asText()).isEqualTo("Unhandled");
    }

    @Test
    void maximumRetryAttempts_deadLettersTheFailingRecordsAsAwsDescribesThem_andRedriveReinvokes() throws Exception {
        String table = local.createTable(LocalTables.uniqueName("dlq"), true, TTL);
        local.put(table, "r1", 1);
        local.put(table, "r2", 2);
        local.put(table, "r3", 3);
        List<String> failing = new CopyOnWriteArrayList<>();
        RecordingHandler handler = new RecordingHandler((number, records) -> {
            List<String> ids = ids(records);
            int index = ids.indexOf("r2");
            return index < 0 || !failing.isEmpty() ? new StreamsEventResponse()
                    : RecordingHandler.failing(sequence(records.get(index)));
        });
        StreamPoller poller = start(table, handler, MappingSettings.builder().maximumRetryAttempts(2), data, null);

        awaitPollers(() -> "a dead letter, batches " + handler.sequenceBatches(), () -> poller.deadLetters().list().size() == 1);

        // r1 succeeded, so the checkpoint moved past it and [r2, r3] is a batch of its own: invoked, then retried
        // twice (as AWS recorded it: the record failed with others before it, then 1 + MaximumRetryAttempts times
        // alone, its message counting the latter).
        assertThat(handler.batches()).extracting(StreamPollerTest::ids).containsExactly(
                List.of("r1", "r2", "r3"), List.of("r2", "r3"), List.of("r2", "r3"), List.of("r2", "r3"));
        DeadLetter letter = poller.deadLetters().list().get(0);
        List<DynamodbStreamRecord> first = handler.batches().get(0);
        JsonNode message = letter.message();
        assertThat(message.at("/requestContext/condition").asText()).isEqualTo("RetryAttemptsExhausted");
        assertThat(message.at("/requestContext/approximateInvokeCount").asInt()).isEqualTo(3);
        assertThat(message.at("/requestContext/functionArn").asText())
                .isEqualTo("arn:aws:lambda:us-east-1:000000000000:function:punctual-expiry-" + table);
        assertThat(message.at("/requestContext/requestId").asText()).isNotBlank();
        assertThat(message.at("/responseContext/statusCode").asInt()).isEqualTo(200);
        assertThat(message.at("/responseContext/executedVersion").asText()).isEqualTo("$LATEST");
        assertThat(message.at("/version").asText()).isEqualTo("1.0");
        assertThat(message.at("/timestamp").asText()).endsWith("Z");
        JsonNode batch = message.get("DDBStreamBatchInfo");
        assertThat(batch.get("shardId").asText()).startsWith("shardId-");
        assertThat(batch.get("startSequenceNumber").asText()).isEqualTo(sequence(first.get(1)));
        assertThat(batch.get("endSequenceNumber").asText()).isEqualTo(sequence(first.get(2)));
        assertThat(batch.get("approximateArrivalOfFirstRecord").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(batch.get("approximateArrivalOfLastRecord").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(batch.get("batchSize").asInt()).isEqualTo(2);
        // DynamoDB Local's stream ARN, in the Region of the records and the function (AWS gives them one Region).
        assertThat(batch.get("streamArn").asText()).isEqualTo(local.streamArn(table).replace(":ddblocal:", ":us-east-1:"));
        assertThat(message.at("/timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        assertThat(ids(letter.records())).containsExactly("r2", "r3");
        assertThat(Files.readAllLines(data.resolve(DeadLetters.FILE_NAME))).hasSize(1);

        failing.add("fixed");
        RedriveResult result = poller.deadLetters().redrive(letter.id());

        assertThat(result.succeeded()).isTrue();
        assertThat(ids(handler.batches().get(handler.batches().size() - 1))).containsExactly("r2", "r3");
        assertThat(poller.deadLetters().find(letter.id()).orElseThrow().redriven()).isPresent();
        DeadLetters reopened = DeadLetters.open(data, watched -> handler, Clock.systemUTC(), "us-east-1");
        assertThat(reopened.list()).singleElement().satisfies(stored -> {
            assertThat(stored.redriven()).isPresent();
            assertThat(ids(stored.records())).containsExactly("r2", "r3");
            assertThat(stored.message()).isEqualTo(message);
            assertThat(stored.table()).isEqualTo(new WatchedTable(table, local.streamArn(table), TTL));
        });
    }

    @Test
    void redrive_whenTheFunctionStillFails_reportsItAndKeepsTheDeadLetter() {
        String table = local.createTable(LocalTables.uniqueName("redrive"), true, TTL);
        local.put(table, "bad", 1);
        RecordingHandler handler = new RecordingHandler((number, records) -> {
            throw new IllegalStateException("still broken");
        });
        StreamPoller poller = start(table, handler, MappingSettings.builder().maximumRetryAttempts(0));
        awaitPollers(() -> "a dead letter", () -> poller.deadLetters().list().size() == 1);
        String id = poller.deadLetters().list().get(0).id();

        RedriveResult result = poller.deadLetters().redrive(id);

        assertThat(result.succeeded()).isFalse();
        assertThat(result.error()).contains("still broken");
        assertThat(poller.deadLetters().find(id).orElseThrow().redriven()).isEmpty();
        assertThat(poller.deadLetters().list().get(0).message().at("/requestContext/approximateInvokeCount").asInt()).isEqualTo(1);
    }

    @Test
    void maximumRecordAge_deadLettersRecordsThatGrewTooOldWhileRetrying() {
        String table = local.createTable(LocalTables.uniqueName("age"), true, TTL);
        local.put(table, "old", 1);
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        RecordingHandler handler = new RecordingHandler((number, records) -> {
            throw new IllegalStateException("always");
        });
        StreamPoller poller = start(table, handler, MappingSettings.builder()
                .maximumRetryAttempts(-1).maximumRecordAgeInSeconds(3600), null, timer);
        awaitMovingTime(timer, "retries", () -> handler.batches().size() >= 2);

        timer.advance(Duration.ofHours(2));

        awaitMovingTime(timer, "a dead letter", () -> poller.deadLetters().list().size() == 1);
        DeadLetter letter = poller.deadLetters().list().get(0);
        assertThat(letter.condition()).isEqualTo(DeadLetter.RECORD_AGE_EXCEEDED);
        assertThat(ids(letter.records())).containsExactly("old");
        assertThat(letter.message().at("/requestContext/approximateInvokeCount").asInt()).isEqualTo(handler.batches().size());
        int invocations = handler.batches().size();

        // The shard is not blocked: a record written now is, by the moved clock, already too old, so it
        // goes straight to the dead letters without an invocation.
        local.put(table, "new", 2);
        awaitMovingTime(timer, "the next record dead-lettered", () -> poller.deadLetters().list().size() == 2);
        DeadLetter next = poller.deadLetters().list().get(1);
        assertThat(ids(next.records())).containsExactly("new");
        assertThat(next.message().at("/requestContext/approximateInvokeCount").asInt()).isZero();
        assertThat(next.message().has("responseContext")).isFalse();
        assertThat(handler.batches()).hasSize(invocations);
    }

    /**
     * DynamoDB Local numbers the stream records of every table in one sequence. A reader that opened its
     * iterator on an empty shard holds the shard's starting number; once other tables' records took the
     * numbers after it, the shard's first record comes later, and GetRecords answers
     * {@code TrimmedDataAccessException} (so does the child shard DynamoDB Local opens four hours after a
     * stream's first). The reader reads on from the shard's oldest record at once: on a timer that does not
     * move, a retry paced by the timer would never come.
     */
    @Test
    void aShardReadWhileEmpty_deliversItsFirstRecord_whenOtherTablesTookTheSequenceNumbersBefore_withoutTimeMoving() {
        String table = local.createTable(LocalTables.uniqueName("gap"), true, TTL);
        String other = local.createTable(LocalTables.uniqueName("other"), true, TTL);
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        RecordingHandler handler = new RecordingHandler();
        StreamPoller poller = start(table, handler, MappingSettings.builder(), null, timer);
        poller.discoverTables();
        awaitQuiet(poller, "the empty shard read");

        local.put(other, "x", 100);
        local.put(other, "y", 100);
        local.put(table, "a", 100);
        local.put(table, "b", 100);
        Instant written = timer.clock().instant();
        awaitQuiet(poller, "the two records read");

        assertThat(ids(handler.records())).containsExactly("a", "b");
        assertThat(timer.clock().instant()).isEqualTo(written);
    }

    /** Waits, without moving time, until the poller's readers found nothing more to read or hand over. */
    private static void awaitQuiet(StreamPoller poller, String description) {
        Map<String, Long> looks = poller.lookNow();
        Await.until(description + ": " + poller.tableMetrics(), WAIT, () -> poller.quietSince(looks));
    }

    @Test
    void checkpoint_letsANewPollerResumeAfterTheLastProcessedRecord() {
        String table = local.createTable(LocalTables.uniqueName("resume"), true, TTL);
        local.put(table, "a", 1);
        local.put(table, "b", 2);
        local.putWithout(table, "unwatched");
        // A directory that does not exist yet, as the runtime's data-dir/stream is on a first start.
        Path directory = data.resolve("stream");
        RecordingHandler first = new RecordingHandler();
        StreamPoller poller = start(table, first, MappingSettings.builder(), directory, null);
        awaitPollers(() -> "first records processed", () -> poller.metrics().snapshot().recordsRead() == 3 && first.records().size() == 2
                && poller.metrics().snapshot().recordsFiltered() == 1);
        poller.close();
        assertThat(directory.resolve(Checkpoints.FILE_NAME)).exists();
        local.put(table, "c", 3);
        local.put(table, "d", 4);

        RecordingHandler second = new RecordingHandler();
        start(table, second, MappingSettings.builder(), directory, null);

        awaitPollers(() -> "new records delivered", () -> second.records().size() >= 2);
        assertThat(ids(second.records())).containsExactly("c", "d");
        assertThat(ids(first.records())).containsExactly("a", "b");
    }

    @Test
    void batchingWindow_holdsASmallBatchUntilTheWindowPasses() {
        String table = local.createTable(LocalTables.uniqueName("window"), true, TTL);
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        RecordingHandler handler = new RecordingHandler();
        StreamPoller poller = start(table, handler, MappingSettings.builder().maximumBatchingWindowInSeconds(60), null, timer);
        local.put(table, "a", 1);
        local.put(table, "b", 2);
        awaitMovingTime(timer, "records read", () -> poller.metrics().snapshot().recordsRead() == 2);
        long polls = poller.metrics().snapshot().polls();
        awaitMovingTime(timer, "two more polls", () -> poller.metrics().snapshot().polls() >= polls + 2);
        assertThat(handler.batches()).isEmpty();

        timer.advance(Duration.ofSeconds(61));

        awaitMovingTime(timer, "one batch", () -> handler.batches().size() == 1);
        assertThat(ids(handler.batches().get(0))).containsExactly("a", "b");
    }

    @Test
    void disabled_leavesRecordsInTheStream_andEnabledAgainDeliversTheBacklogInOrder() {
        String name = LocalTables.uniqueName("enabled");
        RecordingHandler handler = new RecordingHandler();
        StreamPoller poller = start(name, handler, MappingSettings.builder());
        poller.setEnabled(false);
        String table = local.createTable(name, true, TTL);
        for (int i = 0; i < 5; i++) {
            local.put(table, "i" + i, i);
        }
        awaitPollers(() -> "table discovered while disabled", () -> !poller.watchedTables().isEmpty());
        // Nothing signals "did not read": ten looks are asked and answered while disabled, each one a pass of
        // the reader's loop, which would read the stream first if a disabled mapping misbehaved.
        for (int look = 0; look < 10; look++) {
            Map<String, Long> asked = poller.lookNow();
            awaitPollers(() -> "a look answered while disabled", () -> poller.quietSince(asked));
        }
        long readWhileDisabled = poller.metrics().snapshot().recordsRead();

        poller.setEnabled(true);
        awaitPollers(() -> "5 records after enabling", () -> handler.records().size() == 5);

        assertThat(readWhileDisabled).isZero();
        assertThat(poller.isEnabled()).isTrue();
        assertThat(ids(handler.records())).containsExactly("i0", "i1", "i2", "i3", "i4");
    }

    @Test
    void batchSize_capsEachInvocation() {
        String table = local.createTable(LocalTables.uniqueName("size"), true, TTL);
        for (int i = 0; i < 7; i++) {
            local.put(table, "i" + i, i);
        }
        RecordingHandler handler = new RecordingHandler();
        start(table, handler, MappingSettings.builder().batchSize(3));

        awaitPollers(() -> "7 records", () -> handler.records().size() == 7);

        assertThat(handler.batches()).extracting(List::size).containsExactly(3, 3, 1);
    }

    @Test
    void discovery_watchesATableCreatedLaterOnceItHasTtl_andNeverOneWithoutTtl() {
        String later = LocalTables.uniqueName("later");
        String noTtl = LocalTables.uniqueName("nottl");
        RecordingHandler handler = new RecordingHandler();
        List<WatchedTable> built = new CopyOnWriteArrayList<>();
        StreamPoller poller = StreamPoller.builder()
                .dynamoDb(local.dynamoDb).streams(local.streams)
                .handlerFactory(watched -> {
                    built.add(watched);
                    return handler;
                })
                .settings(MappingSettings.builder().pollInterval(Duration.ofMillis(20))
                        .discoveryInterval(Duration.ofMillis(50)).tableAllowList(Set.of(later, noTtl)).build())
                .start();
        pollers.add(poller);
        assertThat(poller.watchedTables()).isEmpty();

        local.createTable(noTtl, true, null);
        local.createTable(later, true, null);
        local.putWithout(noTtl, "x");
        local.put(later, "before-ttl", 1);
        local.enableTtl(later, "until");

        awaitPollers(() -> "the table with TTL watched", () -> !poller.watchedTables().isEmpty());
        local.put(later, "after-ttl", 1);
        awaitPollers(() -> "both records of the TTL table", () -> handler.records().size() == 2);

        assertThat(poller.watchedTables()).containsExactly(new WatchedTable(later, local.streamArn(later), "until"));
        assertThat(built).containsExactly(new WatchedTable(later, local.streamArn(later), "until"));
        assertThat(ids(handler.records())).containsExactly("before-ttl", "after-ttl");
    }
}
