package dev.punctual.local.stepfunctions.mocking;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AWS Step Functions Local's mock configuration file ({@code MockConfigFile.json}, the developer
 * guide's <em>Configuration file for mocked service integrations</em>): {@code StateMachines} → state
 * machine name → {@code TestCases} → test case name → Task state name → mocked response name, and
 * {@code MockedResponses} → mocked response name → invocation number ({@code "0"}) or inclusive range
 * ({@code "1-2"}) → exactly one of {@code Return} (the Task's result) or {@code Throw}
 * ({@code {"Error": …, "Cause": …}}). The whole file is checked when read, so a typo fails at start, not
 * halfway through an execution.
 *
 * <p>An execution uses a test case when it is started on {@code <state machine ARN>#<test case>}, as
 * Step Functions Local's StartExecution does ({@link #testCase}).
 */
public final class MockConfiguration {

    /** No state machine has test cases: every {@code #test case} is refused. */
    public static final MockConfiguration EMPTY = new MockConfiguration(Map.of());

    private final Map<String, Map<String, MockTestCase>> testCases;

    private MockConfiguration(Map<String, Map<String, MockTestCase>> testCases) {
        this.testCases = testCases;
    }

    /** Reads and checks a mock configuration file. */
    public static MockConfiguration read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the mock configuration file " + file, e);
        }
    }

    /**
     * Parses and checks a mock configuration.
     *
     * @throws IllegalArgumentException naming the first field that is wrong and why
     */
    public static MockConfiguration parse(String json) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("The mock configuration is not JSON: " + e.getMessage(), e);
        }
        JsonNode machines = object(root, "StateMachines", "the mock configuration");
        JsonNode responses = object(root, "MockedResponses", "the mock configuration");
        Map<String, List<TaskMocks.Answer>> answers = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = responses.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> response = it.next();
            answers.put(response.getKey(), invocations(response.getKey(), response.getValue()));
        }
        Map<String, Map<String, MockTestCase>> byMachine = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = machines.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> machine = it.next();
            String where = "StateMachines." + machine.getKey();
            JsonNode cases = object(machine.getValue(), "TestCases", where);
            Map<String, MockTestCase> byName = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> c = cases.fields(); c.hasNext(); ) {
                Map.Entry<String, JsonNode> testCase = c.next();
                String caseWhere = where + ".TestCases." + testCase.getKey();
                if (!testCase.getValue().isObject()) {
                    throw new IllegalArgumentException(caseWhere + " must be an object of Task state names to mocked"
                            + " response names");
                }
                Map<String, List<TaskMocks.Answer>> states = new LinkedHashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> s = testCase.getValue().fields(); s.hasNext(); ) {
                    Map.Entry<String, JsonNode> state = s.next();
                    if (!state.getValue().isTextual()) {
                        throw new IllegalArgumentException(caseWhere + "." + state.getKey()
                                + " must be the name of a mocked response");
                    }
                    List<TaskMocks.Answer> mocked = answers.get(state.getValue().asText());
                    if (mocked == null) {
                        throw new IllegalArgumentException(caseWhere + "." + state.getKey() + " names the mocked"
                                + " response '" + state.getValue().asText() + "', which MockedResponses does not define");
                    }
                    states.put(state.getKey(), mocked);
                }
                byName.put(testCase.getKey(), new MockTestCase(machine.getKey(), testCase.getKey(), states));
            }
            byMachine.put(machine.getKey(), Map.copyOf(byName));
        }
        return new MockConfiguration(Map.copyOf(byMachine));
    }

    /**
     * The test case {@code testCaseName} of the state machine named {@code stateMachineName}, or empty
     * if the file defines none of that name.
     */
    public Optional<MockTestCase> testCase(String stateMachineName, String testCaseName) {
        return Optional.ofNullable(testCases.getOrDefault(stateMachineName, Map.of()).get(testCaseName));
    }

    /** One mocked response: its answers in invocation order, each range expanded, gaps and overlaps refused. */
    private static List<TaskMocks.Answer> invocations(String name, JsonNode response) {
        String where = "MockedResponses." + name;
        if (!response.isObject() || response.isEmpty()) {
            throw new IllegalArgumentException(where + " must be an object with at least one invocation (\"0\")");
        }
        Map<Integer, TaskMocks.Answer> byInvocation = new java.util.TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = response.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            int[] range = range(where, entry.getKey());
            TaskMocks.Answer answer = answer(where + "." + entry.getKey(), entry.getValue());
            for (int i = range[0]; i <= range[1]; i++) {
                if (byInvocation.put(i, answer) != null) {
                    throw new IllegalArgumentException(where + " gives invocation " + i + " twice");
                }
            }
        }
        List<TaskMocks.Answer> ordered = new ArrayList<>();
        for (Map.Entry<Integer, TaskMocks.Answer> entry : byInvocation.entrySet()) {
            if (entry.getKey() != ordered.size()) {
                throw new IllegalArgumentException(where + " has no response for invocation " + ordered.size()
                        + ": invocations must be numbered from 0 without gaps");
            }
            ordered.add(entry.getValue());
        }
        return List.copyOf(ordered);
    }

    private static int[] range(String where, String key) {
        String[] parts = key.trim().split("-", -1);
        try {
            if (parts.length == 1) {
                int only = Integer.parseInt(parts[0].trim());
                if (only >= 0) {
                    return new int[] {only, only};
                }
            } else if (parts.length == 2) {
                int first = Integer.parseInt(parts[0].trim());
                int last = Integer.parseInt(parts[1].trim());
                if (first >= 0 && last >= first) {
                    return new int[] {first, last};
                }
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException(where + "." + key + ": an invocation is a number (\"0\") or an inclusive"
                + " range (\"1-2\") of numbers from 0");
    }

    private static TaskMocks.Answer answer(String where, JsonNode node) {
        if (!node.isObject() || node.size() != 1 || !(node.has("Return") || node.has("Throw"))) {
            throw new IllegalArgumentException(where + " must hold exactly one field, Return or Throw");
        }
        if (node.has("Return")) {
            return new TaskMocks.Returned(node.get("Return").deepCopy());
        }
        JsonNode thrown = node.get("Throw");
        if (!thrown.isObject() || !thrown.path("Error").isTextual() || !thrown.path("Cause").isTextual()) {
            throw new IllegalArgumentException(where + ".Throw must be an object with the strings Error and Cause");
        }
        return new TaskMocks.Thrown(thrown.get("Error").asText(), thrown.get("Cause").asText());
    }

    private static JsonNode object(JsonNode parent, String field, String where) {
        JsonNode value = parent == null ? null : parent.get(field);
        if (value == null || !value.isObject()) {
            throw new IllegalArgumentException(where + " needs an object field '" + field + "'");
        }
        return value;
    }
}
