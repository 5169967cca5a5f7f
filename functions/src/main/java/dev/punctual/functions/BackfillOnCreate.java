package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.statemachine.BackfillWorkflow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CloudFormation's requests to the custom resource that starts one backfill run when a stack is first
 * deployed ({@link BackfillWorkflow#ON_CREATE_RESOURCE_TYPE}), which the backfill function serves itself: on
 * {@code Create} it starts the backfill state machine the resource names with {@code {"table": ...}}, and
 * {@code Update} and {@code Delete} start nothing, so only a stack's first deployment (or the resource's
 * creation on an update) starts a run. Every request is answered on its presigned response URL, because
 * CloudFormation waits for that answer: a start that failed is answered {@code FAILED} with its reason, and
 * the deployment then rolls back saying why.
 *
 * <p>The execution is named after the request ({@code on-create-<RequestId>}), so a request Lambda delivers
 * twice starts one run: Step Functions answers the second start with the execution the first one started.
 */
final class BackfillOnCreate {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillOnCreate.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long CloudFormation's response URL may take to take the answer. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

    /** Starts an execution and returns its ARN; the same name and input again return the same execution. */
    @FunctionalInterface
    interface Starts {
        String start(String stateMachineArn, String name, String inputJson);
    }

    /** Puts the answer (JSON) to CloudFormation's presigned response URL. */
    @FunctionalInterface
    interface Answers {
        void answer(URI responseUrl, String body);
    }

    private final Starts starts;
    private final Answers answers;

    BackfillOnCreate(Starts starts, Answers answers) {
        this.starts = Objects.requireNonNull(starts, "starts");
        this.answers = Objects.requireNonNull(answers, "answers");
    }

    /** Whether {@code payload} is a CloudFormation custom resource request rather than a workflow step. */
    static boolean isRequest(Map<String, Object> payload) {
        return payload != null && payload.get("RequestType") instanceof String && payload.get("ResponseURL") instanceof String;
    }

    /** Carries the request out and answers it; returns the answer, which Lambda's own response also carries. */
    Map<String, Object> handle(Map<String, Object> request) {
        String type = (String) request.get("RequestType");
        Map<String, Object> answer = new LinkedHashMap<>();
        try {
            String physicalId = "Create".equals(type) ? start(request) : text(request, "PhysicalResourceId");
            answer.put("Status", "SUCCESS");
            answer.put("PhysicalResourceId", physicalId);
        } catch (RuntimeException e) {
            LOG.error("backfill on create failed: " + e.getMessage(), entry("requestType", type));
            answer.put("Status", "FAILED");
            answer.put("Reason", "Punctual could not start the backfill: " + e.getMessage());
            Object physicalId = request.get("PhysicalResourceId");
            answer.put("PhysicalResourceId", physicalId instanceof String id ? id : String.valueOf(request.get("LogicalResourceId")));
        }
        answer.put("StackId", request.get("StackId"));
        answer.put("RequestId", request.get("RequestId"));
        answer.put("LogicalResourceId", request.get("LogicalResourceId"));
        answers.answer(URI.create((String) request.get("ResponseURL")), json(answer));
        return answer;
    }

    private String start(Map<String, Object> request) {
        if (!(request.get("ResourceProperties") instanceof Map<?, ?> properties)) {
            throw new IllegalArgumentException("the request has no ResourceProperties");
        }
        String stateMachineArn = text(properties, BackfillWorkflow.ON_CREATE_STATE_MACHINE_ARN);
        String table = text(properties, BackfillWorkflow.ON_CREATE_TABLE);
        String execution = starts.start(stateMachineArn, "on-create-" + text(request, "RequestId"),
                json(Map.of(BackfillWorkflow.TABLE, table)));
        LOG.info("backfill started on create", entry("table", table), entry("execution", execution));
        return execution;
    }

    /** Puts {@code body} to {@code responseUrl} as CloudFormation's presigned URL takes it: no content type. */
    static void answerOverHttp(URI responseUrl, String body) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(ANSWER_TIMEOUT).build();
        HttpRequest put = HttpRequest.newBuilder(responseUrl).timeout(ANSWER_TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> response = client.send(put, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException("CloudFormation's response URL answered HTTP " + response.statusCode());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not answer CloudFormation's response URL", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while answering CloudFormation's response URL", e);
        }
    }

    private static String text(Map<?, ?> map, String field) {
        if (map.get(field) instanceof String text && !text.isBlank()) {
            return text;
        }
        throw new IllegalArgumentException("\"" + field + "\" must be a string, got " + map.get(field));
    }

    private static String json(Map<String, Object> value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings is always JSON", e);
        }
    }
}
