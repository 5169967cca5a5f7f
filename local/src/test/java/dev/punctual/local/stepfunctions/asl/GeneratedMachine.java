package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A small, random but valid state machine with its input and canned Task answers, built from one seed
 * (the same seed always builds the same case). It uses only what both interpreters implement as AWS
 * documents it: Pass with Parameters and intrinsics, Choice rules, Map and Parallel, Fail with
 * ErrorPath and CausePath, Task with Retry and Catch on canned errors, Wait, the context object and
 * InputPath, Parameters, ResultSelector, ResultPath and OutputPath.
 *
 * <p>Every step writes its result under a new key ({@code ResultPath: $.r<n>}), so the input's fields
 * stay where the next steps' paths expect them and the final output shows what every step computed.
 * Left out, because aws-local-stepfunctions departs from AWS there (see the feature table in docs/engine.md):
 * type tests with {@code false} ({@code IsPresent: false}, {@code IsString: false}, ...), intrinsics in ErrorPath/CausePath, the path {@code $} on a falsy value, a slice that selects nothing, JsonMerge straight on an input object (theirs changes the input), {@code $$.State}, {@code $$.Execution.Input}
 * and {@code StartTime} inside Map and Parallel, sub-second timestamps, full jitter, failing intrinsics.
 */
record GeneratedMachine(long seed, ObjectNode definition, ObjectNode input, ObjectNode tasks) {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final String FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:f";
    private static final List<String> ERRORS = List.of("Custom.Throttled", "Custom.Broken");

    static GeneratedMachine fromSeed(long seed) {
        return new Builder(new Random(seed)).build(seed);
    }

    private static final class Builder {
        private final Random random;
        private final ObjectNode states = JSON.objectNode();
        private final ObjectNode tasks = JSON.objectNode();
        private int names;

        Builder(Random random) {
            this.random = random;
        }

        GeneratedMachine build(long seed) {
            ObjectNode input = input();
            int steps = 1 + random.nextInt(5);
            List<String> stepNames = new ArrayList<>();
            for (int i = 0; i < steps; i++) {
                stepNames.add(name("Step"));
            }
            String last = random.nextInt(6) == 0 ? name("Fail") : null;
            for (int i = 0; i < steps; i++) {
                String next = i + 1 < steps ? stepNames.get(i + 1) : last;
                step(stepNames.get(i), next, i);
            }
            if (last != null) {
                states.set(last, fail());
            }
            ObjectNode definition = JSON.objectNode();
            definition.put("StartAt", stepNames.get(0));
            definition.set("States", states);
            return new GeneratedMachine(seed, definition, input, tasks);
        }

        private ObjectNode input() {
            ObjectNode input = JSON.objectNode();
            input.put("s", word());
            input.put("n", random.nextInt(101) - 50);
            input.put("f", random.nextBoolean());
            ArrayNode arr = input.putArray("arr");
            for (int i = 1 + random.nextInt(4); i > 0; i--) {
                arr.add(1 + random.nextInt(3));
            }
            ObjectNode obj = input.putObject("obj");
            obj.put("k", "k" + word());
            obj.put("v", random.nextInt(21) - 10);
            input.put("w", random.nextInt(6));
            input.put("ts", timestamp());
            return input;
        }

        /** One step, ending in {@code next} (or the end); {@code index} makes its result key unique. */
        private void step(String name, String next, int index) {
            String resultPath = "$.r" + index;
            ObjectNode state = switch (random.nextInt(7)) {
                case 0 -> passWithParameters(resultPath, true);
                case 1 -> passWithResult(resultPath);
                case 2 -> choice(name, resultPath, next);
                case 3 -> map(resultPath);
                case 4 -> parallel(resultPath);
                case 5 -> task(resultPath, next);
                default -> waitState();
            };
            if (state.get("Type").asText().equals("Choice")) {
                states.set(name, state);
                return;
            }
            if (random.nextInt(8) == 0) {
                state.put("OutputPath", "$");
            }
            link(state, next);
            states.set(name, state);
        }

        private static void link(ObjectNode state, String next) {
            if (next == null) {
                state.put("End", true);
            } else {
                state.put("Next", next);
            }
        }

        private ObjectNode passWithParameters(String resultPath, boolean contextAllowed) {
            ObjectNode state = type("Pass");
            boolean onObj = random.nextInt(4) == 0;
            if (onObj) {
                state.put("InputPath", "$.obj");
            } else if (random.nextInt(5) == 0) {
                state.put("InputPath", "$");
            }
            state.set("Parameters", parameters(onObj, contextAllowed));
            state.put("ResultPath", resultPath);
            return state;
        }

        private ObjectNode passWithResult(String resultPath) {
            ObjectNode state = type("Pass");
            ObjectNode result = JSON.objectNode();
            result.put("x", word());
            result.put("y", random.nextInt(10));
            result.putArray("z").add(random.nextBoolean()).addNull();
            state.set("Result", result);
            state.put("ResultPath", resultPath);
            return state;
        }

        /** A payload template over the whole input, or over {@code $.obj} when {@code onObj}. */
        private ObjectNode parameters(boolean onObj, boolean contextAllowed) {
            ObjectNode parameters = JSON.objectNode();
            parameters.put("static", word());
            int fields = 1 + random.nextInt(4);
            for (int i = 0; i < fields; i++) {
                String key = "p" + i + ".$";
                if (onObj) {
                    parameters.put(key, pick("$.k", "$.v", "$", "States.Format('{}={}', $.k, $.v)",
                            "States.MathAdd($.v, 7)", "States.JsonToString($)", "States.Array($.k, $.v)"));
                } else {
                    List<String> choices = new ArrayList<>(List.of("$.s", "$.n", "$.f", "$.arr", "$.obj.k", "$.arr[0:2]",
                            "States.Format('{} and {}', $.s, $.n)", "States.Array($.s, $.n, $.f)",
                            "States.ArrayLength($.arr)", "States.ArrayContains($.arr, 1)", "States.ArrayUnique($.arr)",
                            "States.ArrayPartition($.arr, 2)", "States.ArrayRange(1, 9, 3)",
                            "States.MathAdd($.n, $.obj.v)", "States.JsonToString($.obj)",
                            "States.StringToJson(States.JsonToString($.obj))", "States.Base64Encode($.obj.k)",
                            "States.Base64Decode(States.Base64Encode($.s))", "States.Hash($.obj.k, 'SHA-256')",
                            "States.JsonMerge(States.StringToJson(States.JsonToString($.obj)), States.StringToJson('{\"extra\": 1}'), false)",
                            "States.StringSplit('a,b,c', ',')"));
                    if (contextAllowed) {
                        choices.addAll(List.of("$$.Execution.Id", "$$.Execution.Name", "$$.Execution.RoleArn",
                                "$$.Execution.StartTime", "$$.Execution.Input.obj", "$$.StateMachine.Id",
                                "$$.StateMachine.Name"));
                    }
                    parameters.put(key, choices.get(random.nextInt(choices.size())));
                }
            }
            if (random.nextBoolean()) {
                parameters.putObject("nested").put("inner.$", onObj ? "$.v" : "$.n");
            }
            return parameters;
        }

        private ObjectNode choice(String name, String resultPath, String next) {
            ObjectNode state = type("Choice");
            ArrayNode choices = state.putArray("Choices");
            int rules = 1 + random.nextInt(2);
            for (int i = 0; i < rules; i++) {
                ObjectNode rule = rule(2);
                String branch = name + "Rule" + i;
                rule.put("Next", branch);
                choices.add(rule);
                states.set(branch, marker(resultPath, "rule" + i, next));
            }
            String fallback = name + "Default";
            if (random.nextInt(5) == 0) {
                // No Default: when nothing matches, the run fails with States.NoChoiceMatched.
                return state;
            }
            state.put("Default", fallback);
            states.set(fallback, marker(resultPath, "default", next));
            return state;
        }

        private ObjectNode marker(String resultPath, String value, String next) {
            ObjectNode state = type("Pass");
            state.put("Result", value);
            state.put("ResultPath", resultPath);
            link(state, next);
            return state;
        }

        private ObjectNode rule(int depth) {
            int kind = random.nextInt(depth > 0 ? 14 : 11);
            ObjectNode rule = JSON.objectNode();
            switch (kind) {
                case 0 -> rule.put("Variable", "$.s").put("StringEquals", random.nextBoolean() ? word() : "a");
                case 1 -> rule.put("Variable", "$.s").put(pick("StringLessThan", "StringGreaterThanEquals"), word());
                case 2 -> rule.put("Variable", "$.s").put("StringMatches", pick("a*", "*b", "*", "a*c", "\\*"));
                case 3 -> rule.put("Variable", "$.n").put(pick("NumericEquals", "NumericLessThan", "NumericGreaterThan",
                        "NumericLessThanEquals", "NumericGreaterThanEquals"), random.nextInt(41) - 20);
                case 4 -> rule.put("Variable", "$.n").put(pick("NumericEqualsPath", "NumericLessThanPath",
                        "NumericGreaterThanEqualsPath"), "$.obj.v");
                case 5 -> rule.put("Variable", "$.f").put("BooleanEquals", random.nextBoolean());
                case 6 -> rule.put("Variable", "$.ts").put(pick("TimestampEquals", "TimestampLessThan",
                        "TimestampGreaterThanEquals"), timestamp());
                case 7 -> rule.put("Variable", pick("$.s", "$.n", "$.f", "$.ts", "$.arr"))
                        .put(pick("IsString", "IsNumeric", "IsBoolean", "IsTimestamp", "IsNull"), true);
                case 8 -> rule.put("Variable", pick("$.s", "$.missing", "$.obj.k")).put("IsPresent", true);
                case 9 -> rule.put("Variable", "$.obj.k").put("StringEqualsPath", pick("$.s", "$.obj.k"));
                case 10 -> rule.put("Variable", "$.arr[0]").put("IsPresent", true);
                case 11 -> rule.set("Not", rule(depth - 1));
                default -> {
                    ArrayNode operands = rule.putArray(random.nextBoolean() ? "And" : "Or");
                    for (int i = 1 + random.nextInt(3); i > 0; i--) {
                        operands.add(rule(depth - 1));
                    }
                }
            }
            return rule;
        }

        private ObjectNode map(String resultPath) {
            ObjectNode state = type("Map");
            state.put("ItemsPath", "$.arr");
            if (random.nextBoolean()) {
                ObjectNode selector = state.putObject("ItemSelector");
                selector.put("value.$", "$$.Map.Item.Value");
                selector.put("index.$", "$$.Map.Item.Index");
                selector.put("s.$", "$.s");
            }
            if (random.nextBoolean()) {
                state.put("MaxConcurrency", random.nextInt(3));
            }
            ObjectNode processor = state.putObject(random.nextBoolean() ? "ItemProcessor" : "Iterator");
            String item = name("Item");
            processor.put("StartAt", item);
            ObjectNode itemState = type("Pass");
            if (random.nextBoolean()) {
                itemState.putObject("Parameters").put("item.$", "$").put("smName.$", "$$.StateMachine.Name")
                        .put("exec.$", "$$.Execution.Name");
            }
            itemState.put("End", true);
            processor.putObject("States").set(item, itemState);
            if (random.nextBoolean()) {
                state.putObject("ResultSelector").put("count.$", "States.ArrayLength($)").put("all.$", "$");
            }
            state.put("ResultPath", resultPath);
            return state;
        }

        private ObjectNode parallel(String resultPath) {
            ObjectNode state = type("Parallel");
            ArrayNode branches = state.putArray("Branches");
            for (int i = 1 + random.nextInt(3); i > 0; i--) {
                // State names are unique in the whole machine, branches included.
                String only = name("Branch");
                ObjectNode branch = JSON.objectNode();
                branch.put("StartAt", only);
                ObjectNode body = random.nextInt(4) == 0 ? waitState() : passWithParameters("$.b", false);
                body.put("End", true);
                branch.putObject("States").set(only, body);
                branches.add(branch);
            }
            if (random.nextBoolean()) {
                state.putObject("ResultSelector").put("first.$", "$[0]").put("n.$", "States.ArrayLength($)");
            }
            state.put("ResultPath", resultPath);
            return state;
        }

        private ObjectNode task(String resultPath, String next) {
            String resource = FUNCTION_ARN + (++names);
            ObjectNode state = type("Task");
            state.put("Resource", resource);
            if (random.nextBoolean()) {
                state.putObject("Parameters").put("from.$", "$.s").put("exec.$", "$$.Execution.Id");
            }
            // Canned answers: up to three errors, then (usually) a result.
            ArrayNode answers = tasks.putArray(resource);
            int failures = random.nextInt(4);
            for (int i = 0; i < failures; i++) {
                answers.addObject().put("error", pick(ERRORS)).put("cause", "attempt " + i + " failed");
            }
            if (failures == 0 || random.nextInt(3) > 0) {
                answers.addObject().putObject("result").put("value", word()).put("calls", failures + 1);
            }
            if (random.nextBoolean()) {
                state.putObject("ResultSelector").put("v.$", "$.value").put("c.$", "$.calls");
            }
            state.put("ResultPath", resultPath);
            if (random.nextBoolean()) {
                ObjectNode retrier = state.putArray("Retry").addObject();
                retrier.putArray("ErrorEquals").add(pick(ERRORS.get(0), ERRORS.get(1), "States.ALL", "States.TaskFailed"));
                if (random.nextBoolean()) {
                    retrier.put("IntervalSeconds", 1 + random.nextInt(3));
                }
                if (random.nextBoolean()) {
                    retrier.put("MaxAttempts", random.nextInt(4));
                }
                if (random.nextBoolean()) {
                    retrier.put("BackoffRate", pick(1.0, 1.5, 2.0));
                }
                if (random.nextInt(3) == 0) {
                    retrier.put("MaxDelaySeconds", 1 + random.nextInt(4));
                }
            }
            if (random.nextBoolean()) {
                ObjectNode catcher = state.putArray("Catch").addObject();
                catcher.putArray("ErrorEquals").add(pick(ERRORS.get(0), ERRORS.get(1), "States.ALL"));
                catcher.put("ResultPath", resultPath + "Error");
                String handler = name("Caught");
                catcher.put("Next", handler);
                states.set(handler, marker(resultPath, "caught", next));
            }
            return state;
        }

        private ObjectNode waitState() {
            ObjectNode state = type("Wait");
            switch (random.nextInt(3)) {
                case 0 -> state.put("Seconds", random.nextInt(6));
                case 1 -> state.put("SecondsPath", "$.w");
                default -> state.put("Timestamp", timestamp());
            }
            return state;
        }

        private ObjectNode fail() {
            ObjectNode state = type("Fail");
            if (random.nextBoolean()) {
                state.put("Error", "Custom.Failed");
            } else {
                state.put("ErrorPath", "$.obj.k");
            }
            if (random.nextBoolean()) {
                state.put("Cause", "because " + word());
            } else {
                state.put("CausePath", pick("$.s", "$.obj.k"));
            }
            return state;
        }

        private ObjectNode type(String type) {
            return JSON.objectNode().put("Type", type);
        }

        private String name(String prefix) {
            return prefix + (++names);
        }

        /** Whole-second instants around the start (2024-01-01T00:00:00Z), some past, some ahead. */
        private String timestamp() {
            return "2024-01-01T00:00:0" + random.nextInt(10) + "Z";
        }

        private String word() {
            String letters = "abc";
            StringBuilder word = new StringBuilder();
            for (int i = random.nextInt(4); i > 0; i--) {
                word.append(letters.charAt(random.nextInt(letters.length())));
            }
            return word.toString();
        }

        @SafeVarargs
        private <T> T pick(T... options) {
            return options[random.nextInt(options.length)];
        }

        private <T> T pick(List<T> options) {
            return options.get(random.nextInt(options.size()));
        }
    }

    /** The case as one JSON object, for a failure message. */
    JsonNode describe() {
        ObjectNode all = JSON.objectNode();
        all.put("seed", seed);
        all.set("definition", definition);
        all.set("input", input);
        all.set("tasks", tasks);
        return all;
    }
}
