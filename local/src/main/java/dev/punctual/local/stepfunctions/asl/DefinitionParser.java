package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.asl.states.ChoiceState;
import dev.punctual.local.stepfunctions.asl.states.DefinitionNode;
import dev.punctual.local.stepfunctions.asl.states.FailState;
import dev.punctual.local.stepfunctions.asl.states.MapState;
import dev.punctual.local.stepfunctions.asl.states.ParallelState;
import dev.punctual.local.stepfunctions.asl.states.PassState;
import dev.punctual.local.stepfunctions.asl.states.State;
import dev.punctual.local.stepfunctions.asl.states.StateFields;
import dev.punctual.local.stepfunctions.asl.states.StateMachineGraph;
import dev.punctual.local.stepfunctions.asl.states.StateType;
import dev.punctual.local.stepfunctions.asl.states.SucceedState;
import dev.punctual.local.stepfunctions.asl.states.TaskState;
import dev.punctual.local.stepfunctions.asl.states.WaitState;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads and validates a definition (JSONPath query language) into a {@link StateMachineGraph},
 * refusing what CreateStateMachine would refuse with the JSON pointer of the problem, and refusing
 * Task resources no registered {@link TaskResource} serves. This class reads the definition's
 * structure (the top level, each graph's {@code StartAt} and {@code States}, transitions and
 * reachability); each state type reads and checks its own fields ({@link StateType}).
 */
final class DefinitionParser implements DefinitionNode.Parser {

    private static final int MAX_STATE_NAME_LENGTH = 80;

    private static final Set<String> TOP_LEVEL_FIELDS = Set.of("Comment", "StartAt", "States", "Version",
            "TimeoutSeconds", "QueryLanguage");
    private static final Set<String> GRAPH_FIELDS = Set.of("Comment", "StartAt", "States", "ProcessorConfig");
    /** Every state type this runtime runs, by {@code Type}. */
    private static final Map<String, StateType> TYPES = Stream.of(PassState.TYPE, TaskState.TYPE, ChoiceState.TYPE,
                    WaitState.TYPE, SucceedState.TYPE, FailState.TYPE, ParallelState.TYPE, MapState.TYPE)
            .collect(Collectors.toMap(StateType::name, Function.identity(), (a, b) -> a, LinkedHashMap::new));

    private final Predicate<String> resourceSupported;

    DefinitionParser(Predicate<String> resourceSupported) {
        this.resourceSupported = resourceSupported;
    }

    StateMachineGraph parse(String definitionJson) {
        JsonNode json;
        try {
            json = Json.parse(definitionJson);
        } catch (IllegalArgumentException e) {
            throw InvalidDefinitionException.of("INVALID_JSON_DESCRIPTION", e.getMessage(), "");
        }
        if (!json.isObject()) {
            throw InvalidDefinitionException.schema("The definition must be a JSON object", "");
        }
        DefinitionNode root = new DefinitionNode(json, "", this);
        root.allowOnly(TOP_LEVEL_FIELDS);
        refuseOtherQueryLanguage(root);
        Long timeout = root.optionalPositiveInteger("TimeoutSeconds");
        StateMachineGraph graph = readGraph(root);
        refuseDuplicateNames(json, "", new HashMap<>());
        return new StateMachineGraph(graph.startAt(), graph.states(), timeout == null ? 0 : timeout);
    }

    @Override
    public StateMachineGraph graph(DefinitionNode node) {
        node.allowOnly(GRAPH_FIELDS);
        return readGraph(node);
    }

    @Override
    public boolean resourceSupported(String resource) {
        return resourceSupported.test(resource);
    }

    /** A graph's {@code StartAt} and {@code States}; the caller checked which other fields it may have. */
    private StateMachineGraph readGraph(DefinitionNode node) {
        String where = node.pointer();
        String startAt = node.requiredString("StartAt", "The field 'StartAt' is required and must be a string");
        JsonNode states = node.get("States");
        if (states == null || !states.isObject() || states.isEmpty()) {
            throw node.error("States", "The field 'States' is required and must be a non-empty object");
        }
        Map<String, State> parsed = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : states.properties()) {
            String name = entry.getKey();
            DefinitionNode state = node.field("States").field(name);
            if (name.isEmpty() || name.length() > MAX_STATE_NAME_LENGTH) {
                throw state.error("State names must be 1 to " + MAX_STATE_NAME_LENGTH + " characters long");
            }
            parsed.put(name, state(name, state));
        }
        if (!parsed.containsKey(startAt)) {
            throw InvalidDefinitionException.of("MISSING_TRANSITION_TARGET", "Missing 'StartAt' target: " + startAt,
                    where + "/StartAt");
        }
        checkTransitions(parsed, where);
        checkReachability(startAt, parsed, where);
        return new StateMachineGraph(startAt, Map.copyOf(parsed), 0);
    }

    /** The machine and each state may name their query language; this runtime runs JSONPath only. */
    private static void refuseOtherQueryLanguage(DefinitionNode node) {
        JsonNode language = node.get("QueryLanguage");
        if (language != null && !"JSONPath".equals(language.asText())) {
            throw node.error("QueryLanguage", "Only the JSONPath query language is supported, not " + language);
        }
    }

    /**
     * State names are unique in the whole state machine, Parallel branches and Map processors included
     * (the ASL specification; CreateStateMachine answers {@code DUPLICATE_STATE_NAME}). Each graph was
     * read already, so the structure walked here is known to be well formed.
     */
    private static void refuseDuplicateNames(JsonNode graph, String where, Map<String, String> seen) {
        for (Map.Entry<String, JsonNode> entry : graph.get("States").properties()) {
            String pointer = where + "/States/" + entry.getKey();
            String first = seen.putIfAbsent(entry.getKey(), pointer);
            if (first != null) {
                throw InvalidDefinitionException.of("DUPLICATE_STATE_NAME", "Duplicate state name '" + entry.getKey()
                        + "' (first at " + first + "): state names must be unique in the whole state machine", pointer);
            }
            JsonNode state = entry.getValue();
            JsonNode branches = state.path("Branches");
            for (int i = 0; i < branches.size(); i++) {
                refuseDuplicateNames(branches.get(i), pointer + "/Branches/" + i, seen);
            }
            for (String processor : List.of("ItemProcessor", "Iterator")) {
                if (state.has(processor)) {
                    refuseDuplicateNames(state.get(processor), pointer + "/" + processor, seen);
                }
            }
        }
    }

    private static State state(String name, DefinitionNode node) {
        if (!node.json().isObject()) {
            throw node.error("A state must be a JSON object");
        }
        String typeName = node.requiredString("Type", "The field 'Type' is required");
        StateType type = TYPES.get(typeName);
        if (type == null) {
            throw node.error("Type", "Unknown state type '" + typeName + "'; expected one of " + TYPES.keySet());
        }
        refuseOtherQueryLanguage(node);
        type.refuseUnsupported().accept(node);
        node.allowOnly(type.allowedFields());
        return type.reader().read(StateFields.read(name, node, type.commonFields()), node);
    }

    private static void checkTransitions(Map<String, State> states, String where) {
        boolean anyTerminal = false;
        for (State state : states.values()) {
            String pointer = where + "/States/" + state.name();
            for (Map.Entry<String, String> target : targets(state).entrySet()) {
                if (!states.containsKey(target.getValue())) {
                    throw InvalidDefinitionException.of("MISSING_TRANSITION_TARGET", "Missing '"
                            + lastSegment(target.getKey()) + "' target: " + target.getValue(),
                            pointer + target.getKey());
                }
            }
            if (state instanceof SucceedState || state instanceof FailState
                    || !(state instanceof ChoiceState) && state.fields().next() == null) {
                anyTerminal = true;
            }
        }
        if (!anyTerminal) {
            throw InvalidDefinitionException.of("MISSING_END_STATE", "No state ends the workflow: add a state with"
                    + " \"End\": true, a Succeed or a Fail state", where + "/States");
        }
    }

    private static String lastSegment(String pointer) {
        String segment = pointer.substring(pointer.lastIndexOf('/') + 1);
        return segment.matches("\\d+") ? "Next" : segment;
    }

    /** Every transition of a state, keyed by the pointer (relative to the state) of the field naming it. */
    private static Map<String, String> targets(State state) {
        Map<String, String> targets = new LinkedHashMap<>();
        if (state.fields().next() != null) {
            targets.put("/Next", state.fields().next());
        }
        if (state instanceof ChoiceState choice) {
            for (int i = 0; i < choice.choices().size(); i++) {
                targets.put("/Choices/" + i + "/Next", choice.choices().get(i).next());
            }
            if (choice.defaultNext() != null) {
                targets.put("/Default", choice.defaultNext());
            }
        }
        for (int i = 0; i < state.fields().catchers().size(); i++) {
            targets.put("/Catch/" + i + "/Next", state.fields().catchers().get(i).next());
        }
        return targets;
    }

    private static void checkReachability(String startAt, Map<String, State> states, String where) {
        Set<String> reached = new HashSet<>();
        Deque<String> pending = new ArrayDeque<>();
        pending.add(startAt);
        while (!pending.isEmpty()) {
            String name = pending.poll();
            if (reached.add(name)) {
                pending.addAll(targets(states.get(name)).values());
            }
        }
        for (String name : states.keySet()) {
            if (!reached.contains(name)) {
                throw InvalidDefinitionException.of("UNREACHABLE_STATE", "State '" + name + "' is not reachable",
                        where + "/States/" + name);
            }
        }
    }
}
