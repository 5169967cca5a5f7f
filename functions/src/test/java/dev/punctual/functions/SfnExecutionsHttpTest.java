package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.SteppingClock;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.LoopbackServer;
import dev.punctual.testing.TestLambdaContext;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;

/**
 * The real {@code SfnClient} against a stub of the Step Functions JSON 1.0 API on a loopback port:
 * the request shape the handler sends, and how service errors map to record outcomes.
 */
class SfnExecutionsHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request as the stub received it. */
    record Request(String target, String contentType, String authorization, JsonNode body) {
    }

    /** A canned answer: HTTP status and body. */
    record Answer(int status, String body) {
        static Answer ok(String body) {
            return new Answer(200, body);
        }

        /** AWS JSON 1.0 error shape: HTTP 400 and {@code __type} naming the error. */
        static Answer error(String type, String message) {
            return new Answer(400, "{\"__type\":\"" + type + "\",\"message\":\"" + message + "\"}");
        }
    }

    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private volatile Function<Request, Answer> answers = request -> Answer.ok("{}");
    private LoopbackServer server;
    private String endpoint;

    @BeforeEach
    void startStub() throws IOException {
        server = LoopbackServer.start(this::answer);
        endpoint = server.endpoint();
    }

    @AfterEach
    void stopStub() {
        server.close();
    }

    private void answer(HttpExchange exchange) throws IOException {
        Request request = new Request(exchange.getRequestHeaders().getFirst("X-Amz-Target"),
                exchange.getRequestHeaders().getFirst("Content-Type"),
                exchange.getRequestHeaders().getFirst("Authorization"),
                JSON.readTree(exchange.getRequestBody()));
        requests.add(request);
        Answer answer = answers.apply(request);
        byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
        exchange.sendResponseHeaders(answer.status(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private Map<String, String> environment() {
        return Map.of(StreamWiring.ENV_STATE_MACHINE_ARN, ExpiryStreamHandlerTest.STATE_MACHINE,
                StreamWiring.ENV_TTL_ATTRIBUTE, "ttl",
                StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, endpoint);
    }

    private List<Request> requestsFor(String operation) {
        return requests.stream().filter(r -> ("AWSStepFunctions." + operation).equals(r.target())).toList();
    }

    @Test
    void handlerBuiltFromTheEnvironment_sendsStartExecutionSignedWithLocalCredentials() throws Exception {
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/insert.json");
        long ttl = Clock.systemUTC().instant().getEpochSecond() + 3600;
        event.getRecords().get(0).getDynamodb().getNewImage().put("ttl", new AttributeValue().withN(Long.toString(ttl)));
        answers = request -> Answer.ok("{\"executionArn\":\"arn:aws:states:us-east-1:123456789012:execution:expire-item:x\","
                + "\"startDate\":1767225600.0}");

        StreamsEventResponse response;
        try (ExpiryStreamHandler handler = new ExpiryStreamHandler(FunctionParts.builder(environment()).build())) {
            response = handler.handleRequest(event, TestLambdaContext.invocation());
        }

        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(requests).hasSize(1);
        Request start = requests.get(0);
        assertThat(start.target()).isEqualTo("AWSStepFunctions.StartExecution");
        assertThat(start.contentType()).startsWith("application/x-amz-json-1.0");
        assertThat(start.authorization()).contains("Credential=local/").contains("/us-east-1/states/aws4_request");
        assertThat(start.body().path("stateMachineArn").asText()).isEqualTo(ExpiryStreamHandlerTest.STATE_MACHINE);
        String name = start.body().path("name").asText();
        assertThat(name).matches("\\d{8}T\\d{6}Z-orders-[a-z2-7]{20}");
        JsonNode input = JSON.readTree(start.body().path("input").asText());
        assertThat(input.path("key").toString()).isEqualTo("{\"id\":{\"S\":\"a\"}}");
        assertThat(input.path("ttl").asText()).isEqualTo(Long.toString(ttl));
        assertThat(input.path("chainName").asText()).isEqualTo(name);
        assertThat(input.fieldNames()).toIterable()
                .containsExactly("contract", "table", "key", "ttlAttribute", "ttl", "expireAt", "horizonHops", "chainName");
    }

    @Test
    void serviceErrors_mapToRecordOutcomes() throws Exception {
        answers = request -> {
            String name = request.body().path("name").asText();
            return switch (request.target()) {
                case "AWSStepFunctions.StartExecution" -> name.startsWith("20260101T000640Z")
                        ? Answer.error("ThrottlingException", "Rate exceeded")
                        : name.startsWith("20260101T000320Z")
                        ? Answer.error("ExecutionAlreadyExists", "Execution Already Exists: '" + name + "'")
                        : Answer.ok("{\"executionArn\":\"arn:x\",\"startDate\":1767225600.0}");
                case "AWSStepFunctions.DescribeExecution" -> Answer.ok("{\"executionArn\":\"arn:x\",\"status\":\"RUNNING\","
                        + "\"startDate\":1767225600.0,\"stateMachineArn\":\"" + ExpiryStreamHandlerTest.STATE_MACHINE + "\"}");
                case "AWSStepFunctions.StopExecution" -> Answer.error("ExecutionDoesNotExist", "Execution Does Not Exist");
                default -> new Answer(500, "{}");
            };
        };
        StreamsEventResponse response;
        SteppingClock backoffClock = new SteppingClock(ExpiryStreamHandlerTest.NOW);
        // The client the environment makes, standard retry mode and its three tries, but without the SDK's
        // backoff sleeps (a second or two of wall time for each throttled call; the handler's own backoff
        // runs on the stepping clock).
        ExpirySettings settings = ExpirySettings.fromEnvironment(environment());
        SfnExecutions unslept = new SfnExecutions(AwsClients.stepFunctions(settings, null, o -> o.retryStrategy(
                AwsRetryStrategy.standardRetryStrategy().toBuilder()
                        .backoffStrategy(BackoffStrategy.retryImmediately())
                        .throttlingBackoffStrategy(BackoffStrategy.retryImmediately())
                        .build())), settings);
        try (ExpiryStreamHandler handler = new ExpiryStreamHandler(FunctionParts.builder(environment())
                .executions(unslept)
                .clock(Clock.fixed(ExpiryStreamHandlerTest.NOW, ZoneOffset.UTC))
                .backoff(new ThrottleBackoff(backoffClock, backoffClock, new Random(3))).metrics(MetricSink.DISCARD).build())) {
            response = handler.handleRequest(EventLoader.loadDynamoDbEvent("events/mixed-batch.json"),
                    TestLambdaContext.remaining(ExpiryStreamHandler.SAFETY_MARGIN.plusSeconds(3)));
        }

        // 602 was throttled through the SDK's retries and the handler's backoff until the invocation's
        // deadline; 605 is the same item's later record.
        assertThat(response.getBatchItemFailures()).extracting(StreamsEventResponse.BatchItemFailure::getItemIdentifier)
                .containsExactly("602", "605");
        assertThat(backoffClock.instant()).as("backed off for the invocation's time less the safety margin")
                .isEqualTo(ExpiryStreamHandlerTest.NOW.plusSeconds(3));
        long throttledStarts = requestsFor("StartExecution").stream()
                .filter(r -> r.body().path("name").asText().startsWith("20260101T000640Z")).count();
        assertThat(throttledStarts).as("each backoff attempt is one SDK call of 3 tries (standard retry mode)")
                .isGreaterThan(3).isEqualTo(3L * (backoffClock.pauses().size() + 1));
        assertThat(requestsFor("StopExecution")).singleElement().satisfies(stop -> assertThat(stop.body().path("executionArn").asText())
                .isEqualTo("arn:aws:states:us-east-1:123456789012:execution:expire-item:" + ExpiryStreamHandlerTest.A_AT_0140));
        assertThat(requestsFor("DescribeExecution")).singleElement().satisfies(describe -> assertThat(
                describe.body().path("executionArn").asText()).endsWith(":execution:expire-item:20260101T000320Z-orders-3i7it46ilh6hc2mgxogx"));
        assertThat(requestsFor("StartExecution").stream().map(r -> r.body().path("name").asText()))
                .noneMatch(name -> name.startsWith("20260101T000820Z"));
    }

    @Test
    void endedUnfinishedSince_listsEveryPageOfEachUnfinishedStatus_andDescribesOnlyThoseStoppedSince() throws Exception {
        ExpirySettings settings = ExpirySettings.fromEnvironment(environment());
        try (SfnExecutions executions = SfnExecutions.create(settings)) {
            answers = request -> {
                if (request.target().endsWith("DescribeExecution")) {
                    return Answer.ok("{\"input\":\"{\\\"for\\\":\\\"" + request.body().path("executionArn").asText() + "\\\"}\"}");
                }
                String status = request.body().path("statusFilter").asText();
                if (!"FAILED".equals(status)) {
                    return Answer.ok("{\"executions\":[]}");
                }
                // Newest first by start: the second page holds an old start that stopped recently.
                return request.body().has("nextToken")
                        ? Answer.ok("{\"executions\":[" + item("old-start", 1700000000, 1767225700) + "]}")
                        : Answer.ok("{\"executions\":[" + item("recent", 1767225000, 1767225650) + ","
                                + item("stopped-long-ago", 1767000000, 1767000100) + "],\"nextToken\":\"p2\"}");
            };

            List<Executions.Ended> ended = executions.endedUnfinishedSince(java.time.Instant.ofEpochSecond(1767225600));

            assertThat(ended).extracting(Executions.Ended::name).containsExactly("recent", "old-start");
            assertThat(ended.get(1).input()).isEqualTo("{\"for\":\"arn:aws:states:us-east-1:123456789012:execution:expire-item:old-start\"}");
            assertThat(requestsFor("ListExecutions")).extracting(r -> r.body().path("statusFilter").asText())
                    .containsExactly("FAILED", "FAILED", "TIMED_OUT", "ABORTED");
            assertThat(requestsFor("DescribeExecution")).hasSize(2);
        }
    }

    private static String item(String name, long start, long stop) {
        return "{\"executionArn\":\"arn:aws:states:us-east-1:123456789012:execution:expire-item:" + name + "\",\"name\":\""
                + name + "\",\"stateMachineArn\":\"arn:aws:states:us-east-1:123456789012:stateMachine:expire-item\","
                + "\"status\":\"FAILED\",\"startDate\":" + start + ",\"stopDate\":" + stop + "}";
    }

    @Test
    void describe_readsAHandOverToASuccessorFromTheOutput() throws Exception {
        ExpirySettings settings = ExpirySettings.fromEnvironment(environment());
        try (SfnExecutions executions = SfnExecutions.create(settings)) {
            answers = request -> Answer.ok("{\"status\":\"SUCCEEDED\",\"stopDate\":1767225601.5,"
                    + "\"output\":\"{\\\"outcome\\\":\\\"ContinuedAsNew\\\",\\\"successor\\\":\\\"arn:x\\\"}\"}");
            assertThat(executions.describe("n")).isEqualTo(new Executions.Holder(Executions.Status.CONTINUED,
                    java.time.Instant.parse("2026-01-01T00:00:01.500Z")));

            answers = request -> Answer.ok("{\"status\":\"SUCCEEDED\",\"stopDate\":1767225601,\"output\":\"{\\\"outcome\\\":\\\"Expired\\\"}\"}");
            assertThat(executions.describe("n").status()).isEqualTo(Executions.Status.CLOSED);

            for (String unfinished : java.util.List.of("FAILED", "TIMED_OUT", "ABORTED")) {
                answers = request -> Answer.ok("{\"status\":\"" + unfinished + "\",\"stopDate\":1767225601}");
                assertThat(executions.describe("n").status()).as(unfinished).isEqualTo(Executions.Status.FAILED);
            }

            answers = request -> Answer.error("ExecutionDoesNotExist", "none");
            assertThat(executions.describe("n").status()).isEqualTo(Executions.Status.MISSING);
            assertThat(executions.stop("n")).isEqualTo(Executions.StopResult.NOT_FOUND);

            answers = request -> Answer.error("StateMachineDoesNotExist", "gone");
            assertThatThrownBy(() -> executions.start("n", "{}")).hasMessageContaining("gone");
        }
    }
}
