package dev.punctual.local.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.executions.ExecutionLog;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.statemachine.BucketWorkflow;
import java.io.IOException;

/**
 * What the console shows of a bucket execution's runners, which no API describes (Express executions
 * keep no history): the running one, named as its bucket execution, with the state it is in and where the
 * runner is (the due second it works next, what it has done; never a key), and the lines its runs logged
 * (ERROR: a failed step, a failed or timed-out run), which are all that is left of a runner that ended.
 */
final class BucketRunners {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BucketRunners() {
    }

    /** Adds {@code runners} and {@code runnerLog} for the bucket execution {@code executionName} to {@code body}. */
    static void describe(StepFunctionsEngine engine, String executionName, ObjectNode body) {
        ArrayNode running = body.putArray("runners");
        for (StepFunctionsEngine.RunningExpress runner : engine.runningExpressExecutions()) {
            if (!runner.name().equals(executionName)) {
                continue;
            }
            ObjectNode row = running.addObject();
            row.put("executionArn", runner.executionArn());
            row.put("startDate", runner.startDate().toEpochMilli());
            row.put("state", runner.state());
            JsonNode state = parse(runner.stateInput()).path(BucketWorkflow.RUNNER);
            if (state.isObject()) {
                ObjectNode where = ((ObjectNode) state).deepCopy();
                JsonNode entries = where.remove(BucketWorkflow.RUNNER_ENTRIES);
                where.put("entriesCarried", entries == null ? 0 : entries.size());
                row.set("runner", where);
            }
        }
        ArrayNode log = body.putArray("runnerLog");
        String suffix = ":" + executionName + ":";
        for (ExecutionLog.Line line : engine.executionLog().latest()) {
            JsonNode event = parse(line.json());
            if (event.path("execution_arn").asText("").contains(suffix)) {
                log.add(event);
            }
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }
}
