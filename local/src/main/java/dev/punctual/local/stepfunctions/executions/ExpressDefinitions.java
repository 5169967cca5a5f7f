package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * What an Express state machine's definition may not hold: Express workflows support only the Request
 * Response integration pattern, not Run a Job ({@code .sync}) nor Wait for Callback
 * ({@code .waitForTaskToken}) (developer guide, "Integrating optimized services with Step Functions").
 */
final class ExpressDefinitions {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ExpressDefinitions() {
    }

    /**
     * Refuses a definition with a Task (at any depth: Map iterators and Parallel branches too) whose
     * resource uses either pattern.
     *
     * @throws StepFunctionsException {@code InvalidDefinition} naming the state and its resource
     */
    static void validate(String definitionJson) {
        JsonNode root;
        try {
            root = MAPPER.readTree(definitionJson);
        } catch (IOException e) {
            return; // The parser has already accepted it; what it reads, this reads.
        }
        check(root, "$");
    }

    private static void check(JsonNode machine, String path) {
        JsonNode states = machine.path("States");
        for (Iterator<Map.Entry<String, JsonNode>> it = states.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> state = it.next();
            String at = path + ".States['" + state.getKey() + "']";
            String resource = state.getValue().path("Resource").asText("");
            if (resource.endsWith(".sync") || resource.contains(".sync:") || resource.endsWith(".waitForTaskToken")) {
                throw new StepFunctionsException(ErrorCode.INVALID_DEFINITION, "Invalid State Machine Definition: '"
                        + "SCHEMA_VALIDATION_FAILED: The resource '" + resource + "' at " + at + " uses the "
                        + (resource.endsWith(".waitForTaskToken") ? "Wait for Callback (.waitForTaskToken)"
                        : "Run a Job (.sync)") + " integration pattern, which EXPRESS state machines do not support;"
                        + " they support Request Response only'");
            }
            for (String nested : new String[] {"Iterator", "ItemProcessor"}) {
                if (state.getValue().has(nested)) {
                    check(state.getValue().get(nested), at + "." + nested);
                }
            }
            JsonNode branches = state.getValue().path("Branches");
            for (int i = 0; i < branches.size(); i++) {
                check(branches.get(i), at + ".Branches[" + i + "]");
            }
        }
    }
}
