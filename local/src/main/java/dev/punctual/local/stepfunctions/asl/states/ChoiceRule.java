package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.AslError;
import dev.punctual.local.stepfunctions.asl.ErrorNames;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** A Choice Rule: a comparison on a {@code Variable}, or {@code And}/{@code Or}/{@code Not} of rules. */
public interface ChoiceRule {

    /** Whether the rule matches the Choice state's effective input. */
    boolean test(JsonNode input, JsonNode context);

    /** Every comparison operator (the {@code ...Path} variants are flagged on the comparison). */
    Set<String> OPERATORS = Set.of(
            "StringEquals", "StringLessThan", "StringGreaterThan", "StringLessThanEquals",
            "StringGreaterThanEquals", "StringMatches",
            "NumericEquals", "NumericLessThan", "NumericGreaterThan", "NumericLessThanEquals",
            "NumericGreaterThanEquals", "BooleanEquals",
            "TimestampEquals", "TimestampLessThan", "TimestampGreaterThan", "TimestampLessThanEquals",
            "TimestampGreaterThanEquals",
            "IsPresent", "IsNull", "IsString", "IsNumeric", "IsBoolean", "IsTimestamp");

    /** {@code And}. */
    record All(List<ChoiceRule> rules) implements ChoiceRule {
        @Override
        public boolean test(JsonNode input, JsonNode context) {
            return rules.stream().allMatch(rule -> rule.test(input, context));
        }
    }

    /** {@code Or}. */
    record Any(List<ChoiceRule> rules) implements ChoiceRule {
        @Override
        public boolean test(JsonNode input, JsonNode context) {
            return rules.stream().anyMatch(rule -> rule.test(input, context));
        }
    }

    /** {@code Not}. */
    record None(ChoiceRule rule) implements ChoiceRule {
        @Override
        public boolean test(JsonNode input, JsonNode context) {
            return !rule.test(input, context);
        }
    }

    /**
     * A comparison such as {@code "Variable": "$.n", "NumericGreaterThan": 0}.
     *
     * @param valuePath for the {@code ...Path} variants, where the compared value comes from; else {@code null}
     */
    record Comparison(JsonPaths.Path variable, String operator, JsonNode value, JsonPaths.Path valuePath)
            implements ChoiceRule {

        @Override
        public boolean test(JsonNode input, JsonNode context) {
            Optional<JsonNode> found = variable.find(input, context);
            if (operator.equals("IsPresent")) {
                return found.isPresent() == value.booleanValue();
            }
            JsonNode actual = found.orElseThrow(() -> new AslError(ErrorNames.RUNTIME,
                    "Invalid path '" + variable.text() + "': The choice state's condition path references an invalid"
                            + " value. Input: " + Json.write(input)));
            JsonNode expected = value;
            if (valuePath != null) {
                expected = valuePath.find(input, context).orElseThrow(() -> new AslError(ErrorNames.RUNTIME,
                        "Invalid path '" + valuePath.text() + "': The choice state's condition path references an"
                                + " invalid value. Input: " + Json.write(input)));
            }
            return compare(actual, expected);
        }

        private boolean compare(JsonNode actual, JsonNode expected) {
            switch (operator) {
                case "IsNull":
                    return actual.isNull() == expected.booleanValue();
                case "IsString":
                    return actual.isTextual() == expected.booleanValue();
                case "IsNumeric":
                    return actual.isNumber() == expected.booleanValue();
                case "IsBoolean":
                    return actual.isBoolean() == expected.booleanValue();
                case "IsTimestamp":
                    return timestamp(actual).isPresent() == expected.booleanValue();
                case "BooleanEquals":
                    return actual.isBoolean() && expected.isBoolean() && actual.booleanValue() == expected.booleanValue();
                case "StringMatches":
                    return actual.isTextual() && expected.isTextual() && matches(actual.textValue(), expected.textValue());
                default:
                    break;
            }
            if (operator.startsWith("String")) {
                if (!actual.isTextual() || !expected.isTextual()) {
                    return false;
                }
                return order(actual.textValue().compareTo(expected.textValue()), operator.substring(6));
            }
            if (operator.startsWith("Numeric")) {
                if (!actual.isNumber() || !expected.isNumber()) {
                    return false;
                }
                return order(actual.decimalValue().compareTo(expected.decimalValue()), operator.substring(7));
            }
            Optional<Instant> left = timestamp(actual);
            Optional<Instant> right = timestamp(expected);
            if (left.isEmpty() || right.isEmpty()) {
                return false;
            }
            return order(left.get().compareTo(right.get()), operator.substring(9));
        }

        private static Optional<Instant> timestamp(JsonNode node) {
            return node.isTextual() ? Timestamps.parse(node.textValue()) : Optional.empty();
        }

        private static boolean order(int comparison, String relation) {
            return switch (relation) {
                case "Equals" -> comparison == 0;
                case "LessThan" -> comparison < 0;
                case "GreaterThan" -> comparison > 0;
                case "LessThanEquals" -> comparison <= 0;
                case "GreaterThanEquals" -> comparison >= 0;
                default -> throw new IllegalStateException("Unknown comparison " + relation);
            };
        }

        /** {@code *} matches any run of characters; {@code \*} a literal star, {@code \\} a backslash. */
        static boolean matches(String text, String pattern) {
            StringBuilder regex = new StringBuilder();
            StringBuilder literal = new StringBuilder();
            for (int i = 0; i < pattern.length(); i++) {
                char c = pattern.charAt(i);
                if (c == '\\' && i + 1 < pattern.length()) {
                    literal.append(pattern.charAt(++i));
                } else if (c == '*') {
                    regex.append(java.util.regex.Pattern.quote(literal.toString())).append(".*");
                    literal.setLength(0);
                } else {
                    literal.append(c);
                }
            }
            regex.append(java.util.regex.Pattern.quote(literal.toString()));
            return java.util.regex.Pattern.compile(regex.toString(), java.util.regex.Pattern.DOTALL).matcher(text).matches();
        }
    }
}
