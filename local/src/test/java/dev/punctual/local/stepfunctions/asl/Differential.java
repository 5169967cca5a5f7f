package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One case run on both interpreters, ours on a manual clock and aws-local-stepfunctions on a fake one,
 * with the same start instant, context object and canned Task answers, and what they disagree on:
 * status, output, error, cause (unless the interpreter raised the error itself: the wording of a
 * {@code States.*} cause is each interpreter's own) and the instant the run ended.
 */
record Differential(JsonNode ours, JsonNode theirs) {

    /** Numbers compare by value: {@code 1}, {@code 1.0} and {@code 1E0} are one JSON number. */
    private static final Comparator<JsonNode> SAME_VALUE = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    };

    /** Runs a case on both; the other interpreter first validates the definition as its CreateStateMachine would. */
    static Differential run(AwsLocalStepFunctions other, JsonNode definition, JsonNode input, Instant start,
            JsonNode tasks) {
        return new Differential(ours(definition, input, start, tasks), other.run(nodeCase(definition, input, start,
                tasks)));
    }

    /**
     * Runs a case known to be valid (built valid by {@link GeneratedMachine}) on both, without the other
     * interpreter's validation, which costs about half a second a definition. Ours still parses and checks it.
     */
    static Differential runValid(AwsLocalStepFunctions other, JsonNode definition, JsonNode input, Instant start,
            JsonNode tasks) {
        return new Differential(ours(definition, input, start, tasks),
                other.run(nodeCase(definition, input, start, tasks).put("validate", false)));
    }

    /** Our interpreter's result in the shape the Node harness answers with. */
    static JsonNode ours(JsonNode definition, JsonNode input, Instant start, JsonNode tasks) {
        ObjectNode result = Json.MAPPER.createObjectNode();
        ManualClockRun run;
        try {
            run = ManualClockRun.run(definition, input, start, tasks);
        } catch (InvalidDefinitionException e) {
            return result.put("status", "INVALID").put("message", e.getMessage());
        }
        RunOutcome outcome = run.outcome();
        if (outcome == null) {
            return result.put("status", "STUCK");
        }
        result.put("status", outcome.status().name());
        if (outcome.status() == RunOutcome.Status.SUCCEEDED) {
            result.set("output", outcome.output());
        } else {
            result.put("error", outcome.error());
            result.put("cause", outcome.cause());
        }
        return result.put("finishedAt", run.finishedAt().toString());
    }

    static ObjectNode nodeCase(JsonNode definition, JsonNode input, Instant start, JsonNode tasks) {
        ObjectNode line = Json.MAPPER.createObjectNode();
        line.set("definition", definition);
        line.set("input", input);
        line.put("now", start.toString());
        ObjectNode context = line.putObject("context");
        context.putObject("Execution")
                .put("Id", ManualClockRun.EXECUTION_ARN)
                .put("Name", ManualClockRun.EXECUTION_NAME)
                .put("RoleArn", ManualClockRun.ROLE_ARN)
                .put("RedriveCount", 0);
        context.putObject("StateMachine")
                .put("Id", ManualClockRun.STATE_MACHINE_ARN)
                .put("Name", ManualClockRun.STATE_MACHINE_NAME);
        if (tasks != null) {
            line.set("tasks", tasks);
        }
        return line;
    }

    /** Every way the two results differ; empty when they agree. */
    List<String> disagreements() {
        List<String> found = new ArrayList<>();
        String status = ours.path("status").asText();
        if (!status.equals(theirs.path("status").asText())) {
            found.add("status: ours " + status + " (" + detail(ours) + "), theirs " + theirs.path("status").asText()
                    + " (" + detail(theirs) + ")");
            return found;
        }
        if (status.equals("INVALID")) {
            return found;
        }
        if (status.equals("SUCCEEDED") && !sameJson(ours.get("output"), theirs.get("output"))) {
            found.add("output differs at " + firstDifference(ours.get("output"), theirs.get("output"), "$"));
        }
        if (!status.equals("SUCCEEDED")) {
            String error = ours.path("error").asText(null);
            if (!Objects.equals(error, theirs.path("error").asText(null))) {
                found.add("error: ours " + error + ", theirs " + theirs.path("error").asText(null));
            } else if (error == null || !error.startsWith("States.")) {
                String cause = ours.path("cause").asText(null);
                if (!Objects.equals(cause, theirs.path("cause").asText(null))) {
                    found.add("cause: ours " + cause + ", theirs " + theirs.path("cause").asText(null));
                }
            }
        }
        Instant ourEnd = Instant.parse(ours.path("finishedAt").asText());
        Instant theirEnd = Instant.parse(theirs.path("finishedAt").asText());
        if (!ourEnd.equals(theirEnd)) {
            found.add("finished at: ours " + ourEnd + ", theirs " + theirEnd);
        }
        return found;
    }

    static boolean sameJson(JsonNode a, JsonNode b) {
        if (a == null || b == null) {
            return a == b;
        }
        return a.equals(SAME_VALUE, b);
    }

    private static String detail(JsonNode result) {
        return switch (result.path("status").asText()) {
            case "SUCCEEDED" -> "output " + brief(result.get("output"));
            case "INVALID", "STUCK", "HARNESS_ERROR" -> result.path("message").asText();
            default -> result.path("error").asText() + ": " + abbreviate(result.path("cause").asText());
        };
    }

    /** Where two JSON values first differ, as a path and both values there. */
    static String firstDifference(JsonNode a, JsonNode b, String path) {
        if (a != null && b != null && a.isObject() && b.isObject()) {
            for (var field : a.properties()) {
                if (!sameJson(field.getValue(), b.get(field.getKey()))) {
                    return firstDifference(field.getValue(), b.get(field.getKey()), path + "." + field.getKey());
                }
            }
            for (var field : b.properties()) {
                if (!a.has(field.getKey())) {
                    return path + "." + field.getKey() + ": ours absent, theirs " + brief(field.getValue());
                }
            }
        }
        if (a != null && b != null && a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                if (!sameJson(a.get(i), b.get(i))) {
                    return firstDifference(a.get(i), b.get(i), path + "[" + i + "]");
                }
            }
        }
        return path + ": ours " + brief(a) + ", theirs " + brief(b);
    }

    /** The JSON text, cut to 300 characters for a readable failure message. */
    static String brief(JsonNode json) {
        return abbreviate(String.valueOf(json));
    }

    private static String abbreviate(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }
}
