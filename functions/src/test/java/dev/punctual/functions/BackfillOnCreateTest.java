package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.LoopbackServer;
import dev.punctual.testing.TestLambdaContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The backfill function as the custom resource that starts one run on a stack's first deployment, on a
 * JSON fixture of the request CloudFormation sends: its StartExecution (to a loopback stand-in for the
 * Step Functions endpoint, which records the request's exact shape) and its answer to the presigned
 * response URL (the same stand-in), for Create, for Update and Delete, and for a start that fails.
 */
class BackfillOnCreateTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BACKFILL_MACHINE = "arn:aws:states:eu-west-1:123456789012:stateMachine:punctual-5b6f5c40-backfill";
    private static final String EXECUTION = "arn:aws:states:eu-west-1:123456789012:execution:punctual-5b6f5c40-backfill:"
            + "on-create-0b3e1e42-5a4b-4d3c-9f4e-2c1d0e9f8a7b";

    /** What the stand-in received: method, path, content type, body. */
    private record Received(String method, String path, String contentType, String target, JsonNode body) {
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile int startStatus = 200;
    private LoopbackServer server;
    private BackfillFunction function;

    @BeforeEach
    void start() throws IOException {
        server = LoopbackServer.start(this::serve);
        String endpoint = server.endpoint();
        function = new BackfillFunction(FunctionParts.builder(ExpirySettings.forBackfillFunction(Map.of(
                        StreamWiring.ENV_STATE_MACHINE_ARN, "arn:aws:states:eu-west-1:123456789012:stateMachine:punctual-5b6f5c40",
                        StreamWiring.ENV_STEP_FUNCTIONS_ENDPOINT, endpoint,
                        StreamWiring.ENV_DYNAMODB_ENDPOINT, endpoint,
                        BackfillWorkflow.ENV_PROGRESS_TABLE, "progress")))
                .executions(new FakeExecutions())
                .build());
    }

    @AfterEach
    void stop() throws Exception {
        function.close();
        server.close();
    }

    private void serve(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                exchange.getRequestHeaders().getFirst("Content-Type"), exchange.getRequestHeaders().getFirst("X-Amz-Target"),
                body.length == 0 ? null : JSON.readTree(body)));
        boolean start = "POST".equals(exchange.getRequestMethod());
        int status = start ? startStatus : 200;
        byte[] answer = !start ? new byte[0] : status == 200
                ? ("{\"executionArn\":\"" + EXECUTION + "\",\"startDate\":1767225600}").getBytes(StandardCharsets.UTF_8)
                : "{\"__type\":\"StateMachineDoesNotExist\",\"message\":\"State Machine Does Not Exist\"}".getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
        exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
        exchange.getResponseBody().write(answer);
        exchange.close();
    }

    private Map<String, Object> request(String type) throws IOException {
        try (InputStream in = BackfillOnCreateTest.class.getResourceAsStream("/events/backfill-on-create.json")) {
            Map<String, Object> request = JSON.readValue(in, new TypeReference<Map<String, Object>>() { });
            request.put("RequestType", type);
            request.put("ResponseURL", server.endpoint() + "/response?X-Amz-Signature=abc");
            if (!type.equals("Create")) {
                request.put("PhysicalResourceId", EXECUTION);
            }
            return request;
        }
    }

    private Received answer() {
        return received.stream().filter(r -> r.method().equals("PUT")).findFirst().orElseThrow();
    }

    @Test
    void create_startsTheBackfillOfTheTable_namedAfterTheRequest_andAnswersSuccessWithTheExecution() throws IOException {
        Map<String, Object> output = function.handleRequest(request("Create"), TestLambdaContext.invocation());

        Received start = received.get(0);
        assertThat(start.target()).isEqualTo("AWSStepFunctions.StartExecution");
        assertThat(start.body().path("stateMachineArn").asText()).isEqualTo(BACKFILL_MACHINE);
        assertThat(start.body().path("name").asText()).isEqualTo("on-create-0b3e1e42-5a4b-4d3c-9f4e-2c1d0e9f8a7b");
        assertThat(JSON.readTree(start.body().path("input").asText())).isEqualTo(JSON.readTree("{\"table\":\"orders\"}"));
        Received answer = answer();
        assertThat(answer.path()).isEqualTo("/response");
        assertThat(answer.contentType()).as("the presigned URL is signed without one").isNull();
        assertThat(answer.body().path("Status").asText()).isEqualTo("SUCCESS");
        assertThat(answer.body().path("PhysicalResourceId").asText()).isEqualTo(EXECUTION);
        assertThat(answer.body().path("RequestId").asText()).isEqualTo("0b3e1e42-5a4b-4d3c-9f4e-2c1d0e9f8a7b");
        assertThat(answer.body().path("LogicalResourceId").asText()).isEqualTo("ExpiryBackfillStartOnCreate0C1D2E3F");
        assertThat(answer.body().path("StackId").asText()).startsWith("arn:aws:cloudformation:eu-west-1:123456789012:stack/");
        assertThat(output).containsEntry("Status", "SUCCESS");
    }

    @Test
    void updateAndDelete_startNothing_andAnswerSuccessKeepingTheResource() throws IOException {
        for (String type : List.of("Update", "Delete")) {
            received.clear();

            function.handleRequest(request(type), TestLambdaContext.invocation());

            assertThat(received).as(type).extracting(Received::method).containsExactly("PUT");
            assertThat(answer().body().path("Status").asText()).isEqualTo("SUCCESS");
            assertThat(answer().body().path("PhysicalResourceId").asText()).isEqualTo(EXECUTION);
        }
    }

    @Test
    void aStartThatFails_isAnsweredFailedWithItsReason_soTheDeploymentSaysWhy() throws IOException {
        startStatus = 400;

        function.handleRequest(request("Create"), TestLambdaContext.invocation());

        assertThat(answer().body().path("Status").asText()).isEqualTo("FAILED");
        assertThat(answer().body().path("Reason").asText()).startsWith("Punctual could not start the backfill: ")
                .contains("State Machine Does Not Exist");
        assertThat(answer().body().path("PhysicalResourceId").asText()).isEqualTo("ExpiryBackfillStartOnCreate0C1D2E3F");
    }

    @Test
    void aWorkflowStep_isNoCustomResourceRequest() throws IOException {
        assertThat(BackfillOnCreate.isRequest(request("Create"))).isTrue();
        assertThat(BackfillOnCreate.isRequest(Map.of(BackfillWorkflow.ACTION, BackfillWorkflow.ACTION_PREPARE))).isFalse();
        assertThat(BackfillOnCreate.isRequest(null)).isFalse();
    }
}
