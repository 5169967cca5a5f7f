package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A Task resource answering from a fixture's {@code tasks}: per resource ARN, a list of
 * {@code {"result": ...}}, {@code {"error": ..., "cause": ...}} or {@code {"never": true}} answers
 * used in order (the last repeats). Records the parameters of every call.
 */
final class CannedTaskResource implements TaskResource {

    private final Map<String, List<JsonNode>> answers = new HashMap<>();
    private final Map<String, Integer> calls = new HashMap<>();
    final List<JsonNode> parameters = new ArrayList<>();

    CannedTaskResource(JsonNode tasks) {
        if (tasks != null) {
            tasks.properties().forEach(e -> {
                List<JsonNode> list = new ArrayList<>();
                e.getValue().forEach(list::add);
                answers.put(e.getKey(), list);
            });
        }
    }

    @Override
    public boolean supports(String resourceArn) {
        return answers.containsKey(resourceArn);
    }

    @Override
    public synchronized CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
        this.parameters.add(parameters);
        List<JsonNode> list = answers.get(resourceArn);
        int call = calls.merge(resourceArn, 1, Integer::sum) - 1;
        JsonNode answer = list.get(Math.min(call, list.size() - 1));
        if (answer.has("never")) {
            return new CompletableFuture<>();
        }
        if (answer.has("error")) {
            return CompletableFuture.failedFuture(new TaskError(answer.get("error").asText(),
                    answer.path("cause").asText("")));
        }
        if (answer.has("echo")) {
            return CompletableFuture.completedFuture(parameters);
        }
        return CompletableFuture.completedFuture(answer.get("result"));
    }
}
