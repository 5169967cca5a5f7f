package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import dev.punctual.local.stepfunctions.asl.paths.PayloadTemplate;
import dev.punctual.local.stepfunctions.asl.paths.ReferencePath;
import dev.punctual.local.stepfunctions.asl.states.Catcher;
import dev.punctual.local.stepfunctions.asl.states.ChoiceRule;
import dev.punctual.local.stepfunctions.asl.states.ChoiceState;
import dev.punctual.local.stepfunctions.asl.states.FailState;
import dev.punctual.local.stepfunctions.asl.states.MapState;
import dev.punctual.local.stepfunctions.asl.states.ParallelState;
import dev.punctual.local.stepfunctions.asl.states.PassState;
import dev.punctual.local.stepfunctions.asl.states.Retrier;
import dev.punctual.local.stepfunctions.asl.states.State;
import dev.punctual.local.stepfunctions.asl.states.StateFields;
import dev.punctual.local.stepfunctions.asl.states.StateMachineGraph;
import dev.punctual.local.stepfunctions.asl.states.SucceedState;
import dev.punctual.local.stepfunctions.asl.states.TaskState;
import dev.punctual.local.stepfunctions.asl.states.Timestamps;
import dev.punctual.local.stepfunctions.asl.states.WaitState;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Reads and validates a definition (JSONPath query language) into a {@link StateMachineGraph},
 * refusing what CreateStateMachine would refuse with the JSON pointer of the problem, and refusing
 * Task resources no registered {@link TaskResource} serves.
 */
final class DefinitionParser {

    private static final int MAX_STATE_NAME_LENGTH = 80;

    private static final Set<String> TOP_LEVEL_FIELDS = Set.of("Comment", "StartAt", "States", "Version",
            "TimeoutSeconds", "QueryLanguage");
    private static final Set<String> GRAPH_FIELDS = Set.of("Comment", "StartAt", "States", "ProcessorConfig");
    private static final Map<String, Set<String>> STATE_FIELDS = Map.of(
            "Pass", Set.of("Type", "Comment", "Next", "End", "InputPath", "OutputPath", "Parameters", "Result",
                    "ResultPath"),
            "Task", Set.of("Type", "Comment", "Next", "End", "InputPath", "OutputPath", "Parameters",
                    "ResultSelector", "ResultPath", "Retry", "Catch", "Resource", "TimeoutSeconds",
                    "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath"),
            "Choice", Set.of("Type", "Comment", "InputPath", "OutputPath", "Choices", "Default"),
            "Wait", Set.of("Type", "Comment", "Next", "End", "InputPath", "OutputPath", "Seconds", "SecondsPath",
                    "Timestamp", "TimestampPath"),
            "Succeed", Set.of("Type", "Comment", "InputPath", "OutputPath"),
            "Fail", Set.of("Type", "Comment", "Error", "ErrorPath", "Cause", "CausePath"),
            "Parallel", Set.of("Type", "Comment", "Next", "End", "InputPath", "OutputPath", "Parameters",
                    "ResultSelector", "ResultPath", "Retry", "Catch", "Branches"),
            "Map", Set.of("Type", "Comment", "Next", "End", "InputPath", "OutputPath", "ItemsPath", "ItemSelector",
                    "Parameters", "ResultSelector", "ResultPath", "Retry", "Catch", "MaxConcurrency", "Iterator",
                    "ItemProcessor"));
    private static final Set<String> DISTRIBUTED_MAP_FIELDS = Set.of("ItemReader", "ItemBatcher", "ResultWriter",
            "ToleratedFailurePercentage", "ToleratedFailureCount", "ToleratedFailurePercentagePath",
            "ToleratedFailureCountPath", "Label", "MaxConcurrencyPath");
    private static final Set<String> RETRIER_FIELDS = Set.of("ErrorEquals", "IntervalSeconds", "MaxAttempts",
            "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment");
    private static final Set<String> CATCHER_FIELDS = Set.of("ErrorEquals", "ResultPath", "Next", "Comment");

    private final Predicate<String> resourceSupported;

    DefinitionParser(Predicate<String> resourceSupported) {
        this.resourceSupported = resourceSupported;
    }

    StateMachineGraph parse(String definitionJson) {
        JsonNode root;
        try {
            root = Json.parse(definitionJson);
        } catch (IllegalArgumentException e) {
            throw invalid("INVALID_JSON_DESCRIPTION", e.getMessage(), "");
        }
        if (!root.isObject()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "The definition must be a JSON object", "");
        }
        unknownFields(root, TOP_LEVEL_FIELDS, "");
        refuseOtherQueryLanguage(root, "");
        long timeout = 0;
        if (root.has("TimeoutSeconds")) {
            timeout = positiveInteger(root.get("TimeoutSeconds"), "/TimeoutSeconds");
        }
        StateMachineGraph graph = graph(root, "", false);
        refuseDuplicateNames(root, "", new HashMap<>());
        return new StateMachineGraph(graph.startAt(), graph.states(), timeout);
    }

    private StateMachineGraph graph(JsonNode node, String where, boolean nested) {
        if (nested) {
            unknownFields(node, GRAPH_FIELDS, where);
        }
        JsonNode startAt = node.get("StartAt");
        if (startAt == null || !startAt.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "The field 'StartAt' is required and must be a string",
                    where + "/StartAt");
        }
        JsonNode states = node.get("States");
        if (states == null || !states.isObject() || states.isEmpty()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "The field 'States' is required and must be a non-empty object",
                    where + "/States");
        }
        Map<String, State> parsed = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : states.properties()) {
            String name = entry.getKey();
            String pointer = where + "/States/" + name;
            if (name.isEmpty() || name.length() > MAX_STATE_NAME_LENGTH) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "State names must be 1 to " + MAX_STATE_NAME_LENGTH
                        + " characters long", pointer);
            }
            parsed.put(name, state(name, entry.getValue(), pointer));
        }
        if (!parsed.containsKey(startAt.textValue())) {
            throw invalid("MISSING_TRANSITION_TARGET", "Missing 'StartAt' target: " + startAt.textValue(),
                    where + "/StartAt");
        }
        checkTransitions(parsed, where);
        checkReachability(startAt.textValue(), parsed, where);
        return new StateMachineGraph(startAt.textValue(), Map.copyOf(parsed), 0);
    }

    private void checkTransitions(Map<String, State> states, String where) {
        boolean anyTerminal = false;
        for (State state : states.values()) {
            String pointer = where + "/States/" + state.name();
            for (Map.Entry<String, String> target : targets(state).entrySet()) {
                if (!states.containsKey(target.getValue())) {
                    throw invalid("MISSING_TRANSITION_TARGET", "Missing '" + lastSegment(target.getKey()) + "' target: "
                            + target.getValue(), pointer + target.getKey());
                }
            }
            if (state instanceof SucceedState || state instanceof FailState
                    || !(state instanceof ChoiceState) && state.fields().next() == null) {
                anyTerminal = true;
            }
        }
        if (!anyTerminal) {
            throw invalid("MISSING_END_STATE", "No state ends the workflow: add a state with \"End\": true, a"
                    + " Succeed or a Fail state", where + "/States");
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
                throw invalid("UNREACHABLE_STATE", "State '" + name + "' is not reachable", where + "/States/" + name);
            }
        }
    }

    /** The machine and each state may name their query language; this runtime runs JSONPath only. */
    private static void refuseOtherQueryLanguage(JsonNode node, String where) {
        JsonNode language = node.get("QueryLanguage");
        if (language != null && !"JSONPath".equals(language.asText())) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Only the JSONPath query language is supported, not "
                    + language, where + "/QueryLanguage");
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
                throw invalid("DUPLICATE_STATE_NAME", "Duplicate state name '" + entry.getKey() + "' (first at " + first
                        + "): state names must be unique in the whole state machine", pointer);
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

    private State state(String name, JsonNode node, String where) {
        if (!node.isObject()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A state must be a JSON object", where);
        }
        JsonNode typeNode = node.get("Type");
        if (typeNode == null || !typeNode.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "The field 'Type' is required", where + "/Type");
        }
        String type = typeNode.textValue();
        Set<String> allowed = STATE_FIELDS.get(type);
        if (allowed == null) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Unknown state type '" + type + "'; expected one of "
                    + STATE_FIELDS.keySet(), where + "/Type");
        }
        if (type.equals("Map")) {
            for (String field : DISTRIBUTED_MAP_FIELDS) {
                if (node.has(field)) {
                    throw invalid("SCHEMA_VALIDATION_FAILED", "The field '" + field + "' belongs to the distributed"
                            + " Map state, which this runtime does not support", where + "/" + field);
                }
            }
        }
        refuseOtherQueryLanguage(node, where);
        Set<String> withLanguage = new HashSet<>(allowed);
        withLanguage.add("QueryLanguage");
        unknownFields(node, withLanguage, where);
        StateFields fields = fields(name, type, node, where);
        switch (type) {
            case "Pass":
                return new PassState(fields, node.get("Result"));
            case "Succeed":
                return new SucceedState(fields);
            case "Fail":
                return fail(fields, node, where);
            case "Wait":
                return waitState(fields, node, where);
            case "Choice":
                return choice(fields, node, where);
            case "Task":
                return task(fields, node, where);
            case "Parallel":
                return parallel(fields, node, where);
            default:
                return map(fields, node, where);
        }
    }

    private StateFields fields(String name, String type, JsonNode node, String where) {
        boolean flowing = !type.equals("Choice") && !type.equals("Succeed") && !type.equals("Fail");
        String next = null;
        if (flowing) {
            JsonNode nextNode = node.get("Next");
            JsonNode end = node.get("End");
            boolean ends = end != null && end.isBoolean() && end.booleanValue();
            if (end != null && !end.isBoolean()) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "'End' must be a boolean", where + "/End");
            }
            if (nextNode != null && ends) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "'Next' and 'End' cannot both be set", where);
            }
            if (nextNode == null && !ends) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "A " + type + " state must have 'Next' or \"End\": true",
                        where);
            }
            if (nextNode != null) {
                if (!nextNode.isTextual()) {
                    throw invalid("SCHEMA_VALIDATION_FAILED", "'Next' must be a state name", where + "/Next");
                }
                next = nextNode.textValue();
            }
        }
        JsonPaths.Path inputPath = optionalPath(node, "InputPath", where);
        JsonPaths.Path outputPath = optionalPath(node, "OutputPath", where);
        PayloadTemplate parameters = null;
        if (node.has("Parameters") && !type.equals("Map")) {
            parameters = template(node.get("Parameters"), where + "/Parameters");
        }
        PayloadTemplate resultSelector = node.has("ResultSelector")
                ? template(node.get("ResultSelector"), where + "/ResultSelector") : null;
        ReferencePath resultPath = null;
        boolean resultPathNull = false;
        if (node.has("ResultPath")) {
            JsonNode value = node.get("ResultPath");
            if (value.isNull()) {
                resultPathNull = true;
            } else {
                resultPath = referencePath(value, where + "/ResultPath");
            }
        }
        List<Retrier> retriers = node.has("Retry") ? retriers(node.get("Retry"), where + "/Retry") : List.of();
        List<Catcher> catchers = node.has("Catch") ? catchers(node.get("Catch"), where + "/Catch") : List.of();
        return new StateFields(name, next, inputPath, isNull(node, "InputPath"), outputPath, isNull(node, "OutputPath"),
                parameters, resultSelector, resultPath, resultPathNull, retriers, catchers);
    }

    private static boolean isNull(JsonNode node, String field) {
        return node.has(field) && node.get(field).isNull();
    }

    private FailState fail(StateFields fields, JsonNode node, String where) {
        exclusive(node, where, "Error", "ErrorPath");
        exclusive(node, where, "Cause", "CausePath");
        return new FailState(fields, optionalString(node, "Error", where), pathOrIntrinsic(node, "ErrorPath", where),
                optionalString(node, "Cause", where), pathOrIntrinsic(node, "CausePath", where));
    }

    /**
     * ErrorPath and CausePath take a reference path or an intrinsic function returning a string
     * (state-fail.html), the same expressions as a payload template's {@code .$} fields, so each is
     * compiled as a one-field template.
     */
    private static PayloadTemplate pathOrIntrinsic(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Expected a reference path or an intrinsic function",
                    where + "/" + field);
        }
        return template(Json.MAPPER.createObjectNode().put(field + ".$", value.textValue()), where + "/" + field);
    }

    private WaitState waitState(StateFields fields, JsonNode node, String where) {
        int given = 0;
        for (String field : List.of("Seconds", "SecondsPath", "Timestamp", "TimestampPath")) {
            given += node.has(field) ? 1 : 0;
        }
        if (given != 1) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Wait state needs exactly one of Seconds, SecondsPath,"
                    + " Timestamp or TimestampPath", where);
        }
        Long seconds = null;
        if (node.has("Seconds")) {
            JsonNode value = node.get("Seconds");
            if (!value.canConvertToExactIntegral() || value.decimalValue().signum() < 0) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "'Seconds' must be a non-negative integer", where + "/Seconds");
            }
            seconds = value.decimalValue().longValueExact();
        }
        Instant timestamp = null;
        if (node.has("Timestamp")) {
            JsonNode value = node.get("Timestamp");
            timestamp = Timestamps.parse(value.isTextual() ? value.textValue() : null).orElseThrow(() -> invalid(
                    "SCHEMA_VALIDATION_FAILED", "'Timestamp' must be an RFC 3339 timestamp such as"
                            + " 2016-03-14T01:59:00Z", where + "/Timestamp"));
        }
        return new WaitState(fields, seconds, optionalPath(node, "SecondsPath", where), timestamp,
                optionalPath(node, "TimestampPath", where));
    }

    private ChoiceState choice(StateFields fields, JsonNode node, String where) {
        JsonNode choices = node.get("Choices");
        if (choices == null || !choices.isArray() || choices.isEmpty()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Choice state needs a non-empty 'Choices' array",
                    where + "/Choices");
        }
        List<ChoiceState.Branch> branches = new ArrayList<>();
        for (int i = 0; i < choices.size(); i++) {
            String pointer = where + "/Choices/" + i;
            JsonNode rule = choices.get(i);
            JsonNode next = rule.get("Next");
            if (next == null || !next.isTextual()) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "Each Choice rule needs 'Next'", pointer + "/Next");
            }
            branches.add(new ChoiceState.Branch(rule(rule, pointer, true), next.textValue()));
        }
        return new ChoiceState(fields, branches, optionalString(node, "Default", where));
    }

    private ChoiceRule rule(JsonNode node, String where, boolean topLevel) {
        if (!node.isObject()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Choice rule must be an object", where);
        }
        if (!topLevel && node.has("Next")) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Only top-level Choice rules may have 'Next'", where + "/Next");
        }
        for (String combinator : List.of("And", "Or")) {
            if (node.has(combinator)) {
                JsonNode rules = node.get(combinator);
                if (!rules.isArray() || rules.isEmpty()) {
                    throw invalid("SCHEMA_VALIDATION_FAILED", "'" + combinator + "' must be a non-empty array of rules",
                            where + "/" + combinator);
                }
                expectOnly(node, where, Set.of(combinator, "Next", "Comment"));
                List<ChoiceRule> nested = new ArrayList<>();
                for (int i = 0; i < rules.size(); i++) {
                    nested.add(rule(rules.get(i), where + "/" + combinator + "/" + i, false));
                }
                return combinator.equals("And") ? new ChoiceRule.All(nested) : new ChoiceRule.Any(nested);
            }
        }
        if (node.has("Not")) {
            expectOnly(node, where, Set.of("Not", "Next", "Comment"));
            return new ChoiceRule.None(rule(node.get("Not"), where + "/Not", false));
        }
        JsonNode variable = node.get("Variable");
        if (variable == null || !variable.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Choice rule needs 'Variable' and a comparison, or And/Or/Not",
                    where);
        }
        JsonPaths.Path variablePath = path(variable, where + "/Variable");
        String operator = null;
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String field = names.next();
            if (field.equals("Variable") || field.equals("Next") || field.equals("Comment")) {
                continue;
            }
            String base = field.endsWith("Path") && !field.equals("IsPresent") ? field.substring(0, field.length() - 4) : field;
            if (!ChoiceRule.OPERATORS.contains(base) || (base.startsWith("Is") && !base.equals(field))) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "Unknown field '" + field + "' in a Choice rule", where + "/" + field);
            }
            if (operator != null) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "A Choice rule may have only one comparison, found '"
                        + operator + "' and '" + field + "'", where + "/" + field);
            }
            operator = field;
        }
        if (operator == null) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Choice rule needs a comparison operator", where);
        }
        JsonNode value = node.get(operator);
        String pointer = where + "/" + operator;
        if (operator.endsWith("Path") && !operator.startsWith("Is")) {
            return new ChoiceRule.Comparison(variablePath, operator.substring(0, operator.length() - 4), null,
                    path(value, pointer));
        }
        checkOperand(operator, value, pointer);
        return new ChoiceRule.Comparison(variablePath, operator, value, null);
    }

    private static void checkOperand(String operator, JsonNode value, String pointer) {
        boolean ok;
        if (operator.startsWith("Is") || operator.equals("BooleanEquals")) {
            ok = value.isBoolean();
        } else if (operator.startsWith("String")) {
            ok = value.isTextual();
        } else if (operator.startsWith("Numeric")) {
            ok = value.isNumber();
        } else {
            ok = value.isTextual() && Timestamps.parse(value.textValue()).isPresent();
        }
        if (!ok) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "The value of '" + operator + "' has the wrong type: "
                    + Json.write(value), pointer);
        }
    }

    private TaskState task(StateFields fields, JsonNode node, String where) {
        JsonNode resource = node.get("Resource");
        if (resource == null || !resource.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Task state needs a 'Resource' string", where + "/Resource");
        }
        if (!resourceSupported.test(resource.textValue())) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "The resource '" + resource.textValue() + "' is not supported by"
                    + " this runtime: no registered task resource serves it", where + "/Resource");
        }
        exclusive(node, where, "TimeoutSeconds", "TimeoutSecondsPath");
        exclusive(node, where, "HeartbeatSeconds", "HeartbeatSecondsPath");
        Long timeout = node.has("TimeoutSeconds") ? positiveInteger(node.get("TimeoutSeconds"), where + "/TimeoutSeconds") : null;
        Long heartbeat = node.has("HeartbeatSeconds")
                ? positiveInteger(node.get("HeartbeatSeconds"), where + "/HeartbeatSeconds") : null;
        if (timeout != null && heartbeat != null && heartbeat >= timeout) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "'HeartbeatSeconds' must be smaller than 'TimeoutSeconds'",
                    where + "/HeartbeatSeconds");
        }
        optionalPath(node, "HeartbeatSecondsPath", where);
        return new TaskState(fields, resource.textValue(), timeout, optionalPath(node, "TimeoutSecondsPath", where),
                heartbeat);
    }

    private ParallelState parallel(StateFields fields, JsonNode node, String where) {
        JsonNode branches = node.get("Branches");
        if (branches == null || !branches.isArray() || branches.isEmpty()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Parallel state needs a non-empty 'Branches' array",
                    where + "/Branches");
        }
        List<StateMachineGraph> graphs = new ArrayList<>();
        for (int i = 0; i < branches.size(); i++) {
            graphs.add(graph(branches.get(i), where + "/Branches/" + i, true));
        }
        return new ParallelState(fields, graphs);
    }

    private MapState map(StateFields fields, JsonNode node, String where) {
        exclusive(node, where, "Iterator", "ItemProcessor");
        exclusive(node, where, "ItemSelector", "Parameters");
        String processorField = node.has("ItemProcessor") ? "ItemProcessor" : "Iterator";
        JsonNode processor = node.get(processorField);
        if (processor == null || !processor.isObject()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "A Map state needs 'ItemProcessor' (or the legacy 'Iterator')",
                    where + "/ItemProcessor");
        }
        JsonNode config = processor.get("ProcessorConfig");
        if (config != null) {
            JsonNode mode = config.get("Mode");
            if (mode != null && !"INLINE".equals(mode.asText())) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "Only ProcessorConfig Mode INLINE is supported, not "
                        + mode, where + "/" + processorField + "/ProcessorConfig/Mode");
            }
        }
        String selectorField = node.has("ItemSelector") ? "ItemSelector" : "Parameters";
        PayloadTemplate selector = node.has(selectorField)
                ? template(node.get(selectorField), where + "/" + selectorField) : null;
        int maxConcurrency = 0;
        if (node.has("MaxConcurrency")) {
            JsonNode value = node.get("MaxConcurrency");
            if (!value.canConvertToExactIntegral() || value.decimalValue().signum() < 0) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "'MaxConcurrency' must be a non-negative integer",
                        where + "/MaxConcurrency");
            }
            maxConcurrency = value.intValue();
        }
        return new MapState(fields, optionalPath(node, "ItemsPath", where), selector, maxConcurrency,
                graph(processor, where + "/" + processorField, true));
    }

    private List<Retrier> retriers(JsonNode node, String where) {
        if (!node.isArray()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "'Retry' must be an array", where);
        }
        List<Retrier> retriers = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String pointer = where + "/" + i;
            JsonNode retrier = node.get(i);
            unknownFields(retrier, RETRIER_FIELDS, pointer);
            List<String> errors = errorEquals(retrier, pointer, i == node.size() - 1);
            int interval = retrier.has("IntervalSeconds")
                    ? (int) positiveInteger(retrier.get("IntervalSeconds"), pointer + "/IntervalSeconds")
                    : Retrier.DEFAULT_INTERVAL_SECONDS;
            int maxAttempts = Retrier.DEFAULT_MAX_ATTEMPTS;
            if (retrier.has("MaxAttempts")) {
                JsonNode value = retrier.get("MaxAttempts");
                if (!value.canConvertToExactIntegral() || value.decimalValue().signum() < 0) {
                    throw invalid("SCHEMA_VALIDATION_FAILED", "'MaxAttempts' must be a non-negative integer",
                            pointer + "/MaxAttempts");
                }
                maxAttempts = value.intValue();
            }
            double backoff = Retrier.DEFAULT_BACKOFF_RATE;
            if (retrier.has("BackoffRate")) {
                JsonNode value = retrier.get("BackoffRate");
                if (!value.isNumber() || value.doubleValue() < 1.0) {
                    throw invalid("SCHEMA_VALIDATION_FAILED", "'BackoffRate' must be a number of at least 1.0",
                            pointer + "/BackoffRate");
                }
                backoff = value.doubleValue();
            }
            int maxDelay = retrier.has("MaxDelaySeconds")
                    ? (int) positiveInteger(retrier.get("MaxDelaySeconds"), pointer + "/MaxDelaySeconds") : 0;
            boolean fullJitter = false;
            if (retrier.has("JitterStrategy")) {
                String jitter = retrier.get("JitterStrategy").asText();
                if (!jitter.equals("FULL") && !jitter.equals("NONE")) {
                    throw invalid("SCHEMA_VALIDATION_FAILED", "'JitterStrategy' must be FULL or NONE",
                            pointer + "/JitterStrategy");
                }
                fullJitter = jitter.equals("FULL");
            }
            retriers.add(new Retrier(errors, interval, maxAttempts, backoff, maxDelay, fullJitter));
        }
        return List.copyOf(retriers);
    }

    private List<Catcher> catchers(JsonNode node, String where) {
        if (!node.isArray()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "'Catch' must be an array", where);
        }
        List<Catcher> catchers = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String pointer = where + "/" + i;
            JsonNode catcher = node.get(i);
            unknownFields(catcher, CATCHER_FIELDS, pointer);
            List<String> errors = errorEquals(catcher, pointer, i == node.size() - 1);
            JsonNode next = catcher.get("Next");
            if (next == null || !next.isTextual()) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "Each Catcher needs 'Next'", pointer + "/Next");
            }
            ReferencePath resultPath = ReferencePath.parse("$");
            if (catcher.has("ResultPath")) {
                JsonNode value = catcher.get("ResultPath");
                resultPath = value.isNull() ? null : referencePath(value, pointer + "/ResultPath");
            }
            catchers.add(new Catcher(errors, resultPath, next.textValue()));
        }
        return List.copyOf(catchers);
    }

    private static List<String> errorEquals(JsonNode node, String where, boolean last) {
        JsonNode errors = node.get("ErrorEquals");
        if (errors == null || !errors.isArray() || errors.isEmpty()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "'ErrorEquals' must be a non-empty array of error names",
                    where + "/ErrorEquals");
        }
        List<String> names = new ArrayList<>();
        for (JsonNode error : errors) {
            if (!error.isTextual()) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "Error names must be strings", where + "/ErrorEquals");
            }
            names.add(error.textValue());
        }
        if (names.contains(ErrorNames.ALL) && (names.size() > 1 || !last)) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "States.ALL must appear alone in 'ErrorEquals' and only in the"
                    + " last Retrier or Catcher", where + "/ErrorEquals");
        }
        return List.copyOf(names);
    }

    private static PayloadTemplate template(JsonNode node, String where) {
        try {
            return PayloadTemplate.compile(node, where);
        } catch (IllegalArgumentException e) {
            throw invalid("SCHEMA_VALIDATION_FAILED", e.getMessage(), "");
        }
    }

    private static JsonPaths.Path optionalPath(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        return path(value, where + "/" + field);
    }

    private static JsonPaths.Path path(JsonNode value, String pointer) {
        if (!value.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Expected a JSONPath string", pointer);
        }
        try {
            return JsonPaths.compile(value.textValue());
        } catch (IllegalArgumentException e) {
            throw invalid("SCHEMA_VALIDATION_FAILED", e.getMessage(), pointer);
        }
    }

    private static ReferencePath referencePath(JsonNode value, String pointer) {
        if (!value.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Expected a reference path string", pointer);
        }
        try {
            return ReferencePath.parse(value.textValue());
        } catch (IllegalArgumentException e) {
            throw invalid("SCHEMA_VALIDATION_FAILED", e.getMessage(), pointer);
        }
    }

    private static String optionalString(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null) {
            return null;
        }
        if (!value.isTextual()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "'" + field + "' must be a string", where + "/" + field);
        }
        return value.textValue();
    }

    private static long positiveInteger(JsonNode value, String pointer) {
        if (!value.canConvertToExactIntegral() || value.decimalValue().signum() <= 0) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Expected a positive integer, got " + Json.write(value), pointer);
        }
        return value.decimalValue().longValueExact();
    }

    private static void exclusive(JsonNode node, String where, String first, String second) {
        if (node.has(first) && node.has(second)) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "'" + first + "' and '" + second + "' cannot both be set", where);
        }
    }

    private static void expectOnly(JsonNode node, String where, Set<String> allowed) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String field = names.next();
            if (!allowed.contains(field)) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "Unexpected field '" + field + "' in a Choice rule",
                        where + "/" + field);
            }
        }
    }

    private static void unknownFields(JsonNode node, Set<String> allowed, String where) {
        if (!node.isObject()) {
            throw invalid("SCHEMA_VALIDATION_FAILED", "Expected a JSON object", where);
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext();) {
            String field = names.next();
            if (!allowed.contains(field)) {
                throw invalid("SCHEMA_VALIDATION_FAILED", "The field '" + field + "' is not supported here",
                        where + "/" + field);
            }
        }
    }

    private static InvalidDefinitionException invalid(String code, String message, String pointer) {
        return new InvalidDefinitionException(code + ": " + message + (pointer.isEmpty() ? "" : " at " + pointer));
    }
}
