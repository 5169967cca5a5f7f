package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.TestLambdaContext;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The bucket function on an EventBridge delivery of a Step Functions status-change event (JSON
 * fixture, as AWS documents the event): a bucket execution that failed gets its successor
 * generation, with the same input plus the generation, and nothing touches DynamoDB.
 */
class BucketFunctionHealingTest {

    private static final String STATE_MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:expire-bucket";
    private static final String FAILED = "20260101T000140Z-second-orders-vivnib";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Instant NOW = Instant.parse("2026-01-01T00:01:52Z");
    private static final String INPUT = "{\"contract\":1,\"table\":\"orders\",\"ttlAttribute\":\"ttl\",\"level\":\"second\","
            + "\"bucketStart\":\"2026-01-01T00:01:40Z\",\"wakeAt\":\"2026-01-01T00:01:39Z\",\"hop\":0}";

    private final FakeExecutions executions = new FakeExecutions();
    private final Listing listing = new Listing(executions);
    private final BucketFunction function = new BucketFunction(FunctionParts.builder(ExpirySettings.forBucketFunction(Map.of(
                    StreamWiring.ENV_STATE_MACHINE_ARN, STATE_MACHINE,
                    StreamWiring.ENV_SCHEDULE_TABLE, "punctual-schedule")))
            .executions(listing)
            .dynamoDb(new UntouchedDynamoDb())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build());

    @AfterEach
    void close() throws Exception {
        function.close();
    }

    private static Map<String, Object> event(java.util.function.Consumer<Map<String, Object>> change) throws IOException {
        try (InputStream in = BucketFunctionHealingTest.class.getResourceAsStream("/events/bucket-execution-failed.json")) {
            Map<String, Object> event = JSON.readValue(in, new TypeReference<Map<String, Object>>() { });
            change.accept(event);
            return event;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> detail(Map<String, Object> event) {
        return (Map<String, Object>) event.get("detail");
    }

    @Test
    void failedBucketExecution_startsItsNextGeneration_withTheSameBucketInput() throws IOException {
        executions.start(FAILED, "{}");
        executions.close(FAILED, Executions.Status.FAILED);

        Map<String, Object> output = function.handleRequest(event(e -> { }), TestLambdaContext.invocation());

        assertThat(output).containsEntry("outcome", "Replaced").containsEntry("execution", FAILED + "-g1");
        assertThat(executions.input(FAILED + "-g1")).isEqualTo("{\"contract\":1,\"table\":\"orders\",\"ttlAttribute\":\"ttl\",\"level\":\"second\","
                + "\"bucketStart\":\"2026-01-01T00:01:40Z\",\"wakeAt\":\"2026-01-01T00:01:39Z\",\"hop\":0,\"generation\":1}");
    }

    @Test
    void theSameEventDeliveredTwice_startsOneSuccessor() throws IOException {
        executions.start(FAILED, "{}");
        executions.close(FAILED, Executions.Status.FAILED);

        function.handleRequest(event(e -> { }), TestLambdaContext.invocation());
        Map<String, Object> again = function.handleRequest(event(e -> { }), TestLambdaContext.invocation());

        assertThat(again).containsEntry("execution", FAILED + "-g1");
        assertThat(executions.calls().stream().filter(call -> call.startsWith("start " + FAILED + "-g")).distinct())
                .containsExactly("start " + FAILED + "-g1");
    }

    @Test
    void eventOfAnotherStateMachine_orOfASucceededExecution_isIgnored() throws IOException {
        Map<String, Object> other = function.handleRequest(event(e -> detail(e).put("stateMachineArn",
                "arn:aws:states:us-east-1:123456789012:stateMachine:someone-elses")), TestLambdaContext.invocation());
        Map<String, Object> succeeded = function.handleRequest(event(e -> detail(e).put("status", "SUCCEEDED")),
                TestLambdaContext.invocation());

        assertThat(other).containsEntry("outcome", "Ignored");
        assertThat(succeeded).containsEntry("outcome", "Ignored");
        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void eventWhoseInputIsNotABucket_isIgnoredWithAReason_notRetriedForever() throws IOException {
        Map<String, Object> output = function.handleRequest(event(e -> detail(e).put("input", "{\"contract\":1,\"table\":\"orders\"}")),
                TestLambdaContext.invocation());

        assertThat(output).containsEntry("outcome", "Ignored");
        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void sweep_replacesEveryUnfinishedBucketExecutionOfTheLastDay_onceEach_andLeavesTheRestAlone() {
        executions.start(FAILED, INPUT);
        executions.close(FAILED, Executions.Status.FAILED);
        String alreadyReplaced = FAILED.replace("000140Z", "000141Z");
        String replacedInput = INPUT.replace("00:01:40Z", "00:01:41Z").replace("00:01:39Z", "00:01:40Z");
        executions.start(alreadyReplaced, replacedInput);
        executions.close(alreadyReplaced, Executions.Status.FAILED);
        String successor = replacedInput.replace("\"hop\":0", "\"hop\":0,\"generation\":1");
        executions.start(alreadyReplaced + "-g1", successor);
        listing.ended.add(new Executions.Ended(FAILED, INPUT, NOW.minusSeconds(10)));
        listing.ended.add(new Executions.Ended(alreadyReplaced, replacedInput, NOW.minusSeconds(20)));
        listing.ended.add(new Executions.Ended("started-by-hand", INPUT, NOW.minusSeconds(30)));
        listing.ended.add(new Executions.Ended("not-a-bucket", "{\"contract\":1,\"table\":\"orders\"}", NOW.minusSeconds(40)));
        Map<String, Object> scheduled = Map.of("source", "aws.events", "detail-type", "Scheduled Event", "detail", Map.of());

        Map<String, Object> output = function.handleRequest(new java.util.HashMap<>(scheduled), TestLambdaContext.invocation());

        assertThat(output).containsEntry("outcome", "Swept").containsEntry("checked", 2).containsEntry("ignored", 2);
        assertThat(listing.since).isEqualTo(NOW.minus(dev.punctual.statemachine.ExecutionStatusEvents.SWEEP_LOOKBACK));
        assertThat(executions.input(FAILED + "-g1")).contains("\"generation\":1");
        assertThat(executions.calls().stream().filter(call -> call.startsWith("start ") && call.contains("-g2"))).isEmpty();
        assertThat(executions.input(alreadyReplaced + "-g1")).as("the successor already running is left as it is").isEqualTo(successor);
    }

    /** The fake's executions, listed as Step Functions would list the unfinished ones. */
    private static final class Listing implements Executions {
        private final FakeExecutions delegate;
        final java.util.List<Ended> ended = new java.util.ArrayList<>();
        Instant since;

        Listing(FakeExecutions delegate) {
            this.delegate = delegate;
        }

        @Override
        public StartResult start(String name, String inputJson) {
            return delegate.start(name, inputJson);
        }

        @Override
        public Holder describe(String name) {
            return delegate.describe(name);
        }

        @Override
        public StopResult stop(String name) {
            return delegate.stop(name);
        }

        @Override
        public java.util.List<Ended> endedUnfinishedSince(Instant since) {
            this.since = since;
            return ended;
        }
    }

    /** Healing must not call DynamoDB: every operation of this client throws. */
    private static final class UntouchedDynamoDb implements DynamoDbClient {
        @Override
        public String serviceName() {
            return SERVICE_NAME;
        }

        @Override
        public void close() {
        }
    }
}
