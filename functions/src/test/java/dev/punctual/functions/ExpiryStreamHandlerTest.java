package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.expiry.MetricSink;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.TestLambdaContext;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The handler on JSON stream events, against a fake of Step Functions, at 2026-01-01T00:00:00Z.
 * Names are pinned: {@code ItemExecutionNameTest} derives the scheme independently.
 */
class ExpiryStreamHandlerTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    static final String STATE_MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:expire-item";
    /** Item {@code id = "a"} of {@code orders} at TTL 1767225700 (2026-01-01T00:01:40Z). */
    static final String A_AT_0140 = "20260101T000140Z-orders-vwwbiikjitxawogu7dkm";

    private final FakeExecutions executions = new FakeExecutions();
    private ExpiryStreamHandler handler = handler(true);

    private ExpiryStreamHandler handler(boolean cancelStale) {
        return new ExpiryStreamHandler(FunctionParts.builder(Map.of(
                        StreamWiring.ENV_STATE_MACHINE_ARN, STATE_MACHINE,
                        StreamWiring.ENV_TTL_ATTRIBUTE, "ttl",
                        StreamWiring.ENV_CANCEL_STALE, Boolean.toString(cancelStale),
                        StreamWiring.ENV_MAX_CONCURRENCY, "4"))
                .executions(executions).clock(Clock.fixed(NOW, ZoneOffset.UTC)).metrics(MetricSink.DISCARD).build());
    }

    @AfterEach
    void close() throws Exception {
        handler.close();
    }

    private List<String> handle(String fixture) {
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/" + fixture);
        StreamsEventResponse response = handler.handleRequest(event, TestLambdaContext.invocation());
        return response.getBatchItemFailures().stream().map(StreamsEventResponse.BatchItemFailure::getItemIdentifier).toList();
    }

    private static String input(String key, String ttl, String expireAt, String name) {
        return "{\"contract\":1,\"table\":\"orders\",\"key\":" + key + ",\"ttlAttribute\":\"ttl\",\"ttl\":\"" + ttl + "\",\"expireAt\":\""
                + expireAt + "\",\"horizonHops\":0,\"chainName\":\"" + name + "\"}";
    }

    @Test
    void insert_startsOneExecutionWithTheExactNameAndInput() {
        assertThat(handle("insert.json")).isEmpty();

        assertThat(executions.calls()).containsExactly("start " + A_AT_0140);
        assertThat(executions.input(A_AT_0140))
                .isEqualTo(input("{\"id\":{\"S\":\"a\"}}", "1767225700", "2026-01-01T00:01:40Z", A_AT_0140));
    }

    @Test
    void itemNearTheItemSizeLimit_startsWithTheKeyOnly_neverTheImage() {
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/insert.json");
        String blob = "x".repeat(390 * 1024);
        Map<String, com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue> image =
                new java.util.HashMap<>(event.getRecords().get(0).getDynamodb().getNewImage());
        image.put("payload", new com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue().withS(blob));
        event.getRecords().get(0).getDynamodb().setNewImage(image);

        StreamsEventResponse response = handler.handleRequest(event, TestLambdaContext.invocation());

        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(executions.input(A_AT_0140))
                .isEqualTo(input("{\"id\":{\"S\":\"a\"}}", "1767225700", "2026-01-01T00:01:40Z", A_AT_0140))
                .hasSizeLessThan(512);
    }

    @Test
    void insertWithFractionalTtl_deletesAtTheNextWholeSecondAndComparesTheExactNumber() {
        assertThat(handle("insert-fractional.json")).isEmpty();

        String name = "20260101T000001Z-orders-4bnwpo72v6vrkbaptjsv";
        assertThat(executions.calls()).containsExactly("start " + name);
        assertThat(executions.input(name))
                .isEqualTo(input("{\"id\":{\"S\":\"a\"}}", "1767225600.001", "2026-01-01T00:00:01Z", name));
    }

    @Test
    void modifyChangingTheTtl_stopsTheOldExecutionAndStartsTheNewOne() {
        assertThat(handle("modify-ttl-changed.json")).isEmpty();

        assertThat(executions.calls()).containsExactly("stop " + A_AT_0140, "start 20260101T010000Z-orders-bn7m7o6gspbznkwqpmm5");
    }

    @Test
    void modifyChangingTheTtl_whenCancellationIsOff_onlyStarts() throws Exception {
        handler.close();
        handler = handler(false);

        assertThat(handle("modify-ttl-changed.json")).isEmpty();

        assertThat(executions.calls()).containsExactly("start 20260101T010000Z-orders-bn7m7o6gspbznkwqpmm5");
    }

    @Test
    void modifyKeepingTheTtl_callsNothing() {
        assertThat(handle("modify-ttl-unchanged.json")).isEmpty();

        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void modifyRemovingTheTtl_stopsTheExecution() {
        assertThat(handle("modify-ttl-removed.json")).isEmpty();

        assertThat(executions.calls()).containsExactly("stop " + A_AT_0140);
    }

    @Test
    void removeByTheApplication_stopsTheExecution() {
        assertThat(handle("remove-by-user.json")).isEmpty();

        assertThat(executions.calls()).containsExactly("stop 20260101T010000Z-orders-bn7m7o6gspbznkwqpmm5");
    }

    @Test
    void removeByNativeTtlOrByOurOwnExpiryDelete_callsNothing() {
        assertThat(handle("remove-by-ttl-service.json")).isEmpty();
        assertThat(handle("remove-at-expiry.json")).isEmpty();

        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void unschedulableTtls_areIgnoredWithoutFailingTheBatch() {
        assertThat(handle("string-ttl.json")).isEmpty();
        assertThat(handle("milliseconds-ttl.json")).isEmpty();
        assertThat(handle("missing-ttl.json")).isEmpty();

        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void duplicateRecords_startOneExecution() {
        assertThat(handle("duplicates.json")).isEmpty();
        assertThat(handle("duplicates.json")).isEmpty();

        assertThat(executions.executions()).containsOnlyKeys(A_AT_0140);
    }

    @Test
    void mixedBatch_reportsTheFailedRecordAndItsItemsLaterRecordsOnly() {
        executions.failStarts(name -> name.startsWith("20260101T000640Z"), new IllegalStateException("ThrottlingException"));

        List<String> failures = handle("mixed-batch.json");

        assertThat(failures).containsExactly("602", "605");
        assertThat(executions.calls()).containsSubsequence("start " + A_AT_0140, "stop " + A_AT_0140,
                "start 20260101T000320Z-orders-3i7it46ilh6hc2mgxogx");
        assertThat(executions.calls()).contains("start 20260101T000640Z-orders-aucx4sbxu3vj2jwaaui6")
                .noneMatch(call -> call.startsWith("start 20260101T000820Z"));
    }

    @Test
    void binaryKeys_travelAsBase64DynamoDbJson() {
        assertThat(handle("binary-key.json")).isEmpty();

        String name = "20260101T000140Z-orders-dc5cyhu6houjwbnotxku";
        assertThat(executions.calls()).containsExactly("start " + name);
        assertThat(executions.input(name)).isEqualTo(
                input("{\"pk\":{\"B\":\"AAEC/w==\"},\"sk\":{\"N\":\"42\"}}", "1767225700", "2026-01-01T00:01:40Z", name));
    }

    @Test
    void longestLegalKeysStart_andIllegallyLongKeysAreIgnored() {
        assertThat(handle("long-string-key.json")).isEmpty();

        assertThat(executions.calls()).hasSize(1);
        String name = executions.calls().get(0).substring("start ".length());
        assertThat(executions.input(name)).contains("\"pk\":{\"S\":\"" + "p".repeat(2048) + "\"}", "\"sk\":{\"S\":\"" + "s".repeat(1024) + "\"}");
    }

    @Test
    void tableNamesWithDotsAndDashes_areReadFromTheStreamArnAndKeptInTheName() {
        assertThat(handle("table-names.json")).isEmpty();

        assertThat(executions.executions()).containsOnlyKeys("20260101T000140Z-my.orders-v2_eu-hec62lp77h2e5bd64pq7", A_AT_0140);
        assertThat(executions.input("20260101T000140Z-my.orders-v2_eu-hec62lp77h2e5bd64pq7")).startsWith("{\"contract\":1,\"table\":\"my.orders-v2_eu\",");
    }

    @Test
    void keysWithQuotesAndControlCharacters_areEscapedInTheInput() {
        assertThat(handle("key-with-quotes.json")).isEmpty();

        String name = executions.calls().get(0).substring("start ".length());
        assertThat(executions.input(name)).startsWith("{\"contract\":1,\"table\":\"orders\",\"key\":{\"id\":{\"S\":\"say \\\"hi\\\"\\\\ \u00e9\\n\"}},");
    }

    @Test
    void anEmptyEvent_reportsNoFailures() {
        assertThat(handler.handleRequest(new DynamodbEvent(), TestLambdaContext.invocation()).getBatchItemFailures()).isEmpty();
    }

    @Test
    void aRecordWithoutAStreamArn_isReportedFailedAlone() {
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/table-names.json");
        event.getRecords().get(0).setEventSourceARN("arn:aws:dynamodb:us-east-1:123456789012:table/orders");

        StreamsEventResponse response = handler.handleRequest(event, TestLambdaContext.invocation());

        assertThat(response.getBatchItemFailures()).extracting(StreamsEventResponse.BatchItemFailure::getItemIdentifier)
                .containsExactly("900");
        assertThat(executions.executions()).containsOnlyKeys(A_AT_0140);
    }
}
