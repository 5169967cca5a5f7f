package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
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

    /**
     * Reads a Choice rule; only a {@code topLevel} one (an entry of {@code Choices}) may have
     * {@code Next}, which the Choice state reads itself.
     */
    static ChoiceRule read(DefinitionNode node, boolean topLevel) {
        if (!node.json().isObject()) {
            throw node.error("A Choice rule must be an object");
        }
        if (!topLevel && node.has("Next")) {
            throw node.error("Next", "Only top-level Choice rules may have 'Next'");
        }
        for (String combinator : List.of("And", "Or")) {
            if (node.has(combinator)) {
                JsonNode rules = node.get(combinator);
                if (!rules.isArray() || rules.isEmpty()) {
                    throw node.error(combinator, "'" + combinator + "' must be a non-empty array of rules");
                }
                node.allowOnly(Set.of(combinator, "Next", "Comment"), "Unexpected field '%s' in a Choice rule");
                List<ChoiceRule> nested = new ArrayList<>();
                for (int i = 0; i < rules.size(); i++) {
                    nested.add(read(node.field(combinator).element(i), false));
                }
                return combinator.equals("And") ? new All(nested) : new Any(nested);
            }
        }
        if (node.has("Not")) {
            node.allowOnly(Set.of("Not", "Next", "Comment"), "Unexpected field '%s' in a Choice rule");
            return new None(read(node.field("Not"), false));
        }
        JsonNode variable = node.get("Variable");
        if (variable == null || !variable.isTextual()) {
            throw node.error("A Choice rule needs 'Variable' and a comparison, or And/Or/Not");
        }
        JsonPaths.Path variablePath = node.field("Variable").path();
        String operator = null;
        for (Iterator<String> names = node.json().fieldNames(); names.hasNext();) {
            String field = names.next();
            if (field.equals("Variable") || field.equals("Next") || field.equals("Comment")) {
                continue;
            }
            String base = field.endsWith("Path") && !field.equals("IsPresent")
                    ? field.substring(0, field.length() - 4) : field;
            if (!OPERATORS.contains(base) || (base.startsWith("Is") && !base.equals(field))) {
                throw node.error(field, "Unknown field '" + field + "' in a Choice rule");
            }
            if (operator != null) {
                throw node.error(field, "A Choice rule may have only one comparison, found '" + operator + "' and '"
                        + field + "'");
            }
            operator = field;
        }
        if (operator == null) {
            throw node.error("A Choice rule needs a comparison operator");
        }
        DefinitionNode operand = node.field(operator);
        if (operator.endsWith("Path") && !operator.startsWith("Is")) {
            return new Comparison(variablePath, operator.substring(0, operator.length() - 4), null, operand.path());
        }
        checkOperand(operator, operand);
        return new Comparison(variablePath, operator, operand.json(), null);
    }

    private static void checkOperand(String operator, DefinitionNode operand) {
        JsonNode value = operand.json();
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
            throw operand.error("The value of '" + operator + "' has the wrong type: " + Json.write(value));
        }
    }

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
            JsonNode actual = found.orElseThrow(() -> new StatesRuntimeError("Invalid path '" + variable.text()
                    + "': The choice state's condition path references an invalid value. Input: " + Json.write(input)));
            JsonNode expected = value;
            if (valuePath != null) {
                expected = valuePath.find(input, context).orElseThrow(() -> new StatesRuntimeError("Invalid path '"
                        + valuePath.text() + "': The choice state's condition path references an invalid value. Input: "
                        + Json.write(input)));
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
