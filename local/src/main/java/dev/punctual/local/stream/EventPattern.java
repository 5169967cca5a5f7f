package dev.punctual.local.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * One filter pattern in EventBridge syntax, as an event source mapping's {@code FilterCriteria} holds it,
 * matched against the JSON form of a record ({@link LambdaRecordJson}).
 *
 * <p>Semantics: fields of an object all have to match (AND); an array lists alternatives (OR); a value
 * in the record that is an array matches if any element does. Supported inside arrays: exact strings,
 * numbers, booleans and null; {@code exists} (leaf values only), {@code prefix}, {@code suffix},
 * {@code equals-ignore-case}, {@code anything-but} (a value, a list, or a {@code prefix}/{@code suffix})
 * and {@code numeric} with one or two comparisons. {@code numeric} only matches JSON numbers, so it
 * never matches a DynamoDB {@code N} value, which the record carries as a string. Other operators
 * ({@code wildcard}, {@code cidr}, {@code $or}) are refused when the pattern is parsed.
 */
public final class EventPattern {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode pattern;

    private EventPattern(JsonNode pattern) {
        this.pattern = pattern;
    }

    /** Parses and checks a pattern; a malformed or unsupported one is refused with the reason. */
    public static EventPattern parse(String patternJson) {
        JsonNode tree;
        try {
            tree = JSON.readTree(patternJson);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("filter pattern is not valid JSON: " + patternJson, e);
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("filter pattern must be a JSON object, got " + patternJson);
        }
        validateObject(tree, patternJson);
        return new EventPattern(tree);
    }

    /** Whether the record (in Lambda's JSON form) matches this pattern. */
    public boolean matches(JsonNode record) {
        return matchesObject(pattern, record);
    }

    @Override
    public String toString() {
        return pattern.toString();
    }

    private static boolean matchesObject(JsonNode pattern, JsonNode event) {
        Iterator<Map.Entry<String, JsonNode>> fields = pattern.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = event == null || !event.isObject() ? null : event.get(field.getKey());
            boolean matched = field.getValue().isObject()
                    ? matchesObject(field.getValue(), value)
                    : matchesAny(field.getValue(), value);
            if (!matched) {
                return false;
            }
        }
        return true;
    }

    private static boolean matchesAny(JsonNode alternatives, JsonNode value) {
        for (JsonNode alternative : alternatives) {
            if (matchesOne(alternative, value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matchesOne(JsonNode matcher, JsonNode value) {
        if (matcher.isObject() && matcher.has("exists")) {
            // Exists looks at leaves only, as on EventBridge: an object in the record is not a leaf.
            boolean present = value != null && !value.isObject();
            return matcher.get("exists").booleanValue() == present;
        }
        if (value == null) {
            return false;
        }
        if (value.isArray()) {
            for (JsonNode element : value) {
                if (matchesOne(matcher, element)) {
                    return true;
                }
            }
            return false;
        }
        if (!matcher.isObject()) {
            return equalsLiteral(matcher, value);
        }
        Map.Entry<String, JsonNode> operator = matcher.fields().next();
        JsonNode operand = operator.getValue();
        return switch (operator.getKey()) {
            case "prefix" -> operand.isObject()
                    ? value.isTextual() && value.textValue().toLowerCase(Locale.ROOT)
                            .startsWith(operand.get("equals-ignore-case").textValue().toLowerCase(Locale.ROOT))
                    : value.isTextual() && value.textValue().startsWith(operand.textValue());
            case "suffix" -> operand.isObject()
                    ? value.isTextual() && value.textValue().toLowerCase(Locale.ROOT)
                            .endsWith(operand.get("equals-ignore-case").textValue().toLowerCase(Locale.ROOT))
                    : value.isTextual() && value.textValue().endsWith(operand.textValue());
            case "equals-ignore-case" -> value.isTextual() && value.textValue().equalsIgnoreCase(operand.textValue());
            case "anything-but" -> anythingBut(operand, value);
            case "numeric" -> value.isNumber() && numeric(operand, value.decimalValue());
            default -> throw new IllegalStateException("unvalidated operator " + operator.getKey());
        };
    }

    private static boolean anythingBut(JsonNode excluded, JsonNode value) {
        if (excluded.isArray()) {
            for (JsonNode one : excluded) {
                if (equalsLiteral(one, value)) {
                    return false;
                }
            }
            return true;
        }
        if (excluded.isObject()) {
            Map.Entry<String, JsonNode> operator = excluded.fields().next();
            String text = operator.getValue().textValue();
            return value.isTextual() && switch (operator.getKey()) {
                case "prefix" -> !value.textValue().startsWith(text);
                case "suffix" -> !value.textValue().endsWith(text);
                case "equals-ignore-case" -> !value.textValue().equalsIgnoreCase(text);
                default -> throw new IllegalStateException("unvalidated anything-but operator " + operator.getKey());
            };
        }
        return !equalsLiteral(excluded, value);
    }

    private static boolean numeric(JsonNode comparisons, BigDecimal value) {
        for (int i = 0; i < comparisons.size(); i += 2) {
            int order = value.compareTo(comparisons.get(i + 1).decimalValue());
            boolean holds = switch (comparisons.get(i).textValue()) {
                case "=" -> order == 0;
                case "<" -> order < 0;
                case "<=" -> order <= 0;
                case ">" -> order > 0;
                case ">=" -> order >= 0;
                default -> throw new IllegalStateException("unvalidated numeric operator " + comparisons.get(i));
            };
            if (!holds) {
                return false;
            }
        }
        return true;
    }

    private static boolean equalsLiteral(JsonNode literal, JsonNode value) {
        if (literal.isNumber()) {
            return value.isNumber() && literal.decimalValue().compareTo(value.decimalValue()) == 0;
        }
        if (literal.isNull()) {
            return value.isNull();
        }
        return literal.equals(value);
    }

    private static void validateObject(JsonNode object, String source) {
        Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = field.getValue();
            if (field.getKey().startsWith("$")) {
                throw unsupported(field.getKey(), source);
            }
            if (value.isObject()) {
                validateObject(value, source);
            } else if (value.isArray()) {
                if (value.isEmpty()) {
                    throw new IllegalArgumentException("filter pattern lists no values for '" + field.getKey() + "': " + source);
                }
                value.forEach(matcher -> validateMatcher(matcher, source));
            } else {
                throw new IllegalArgumentException("filter pattern values must be arrays or objects, got "
                        + field.getKey() + "=" + value + " in " + source);
            }
        }
    }

    private static void validateMatcher(JsonNode matcher, String source) {
        if (matcher.isArray()) {
            throw new IllegalArgumentException("filter pattern arrays cannot nest: " + source);
        }
        if (!matcher.isObject()) {
            return;
        }
        if (matcher.size() != 1) {
            throw new IllegalArgumentException("a filter operator object holds exactly one operator, got " + matcher
                    + " in " + source);
        }
        Map.Entry<String, JsonNode> operator = matcher.fields().next();
        JsonNode operand = operator.getValue();
        switch (operator.getKey()) {
            case "exists" -> require(operand.isBoolean(), "exists takes true or false", matcher, source);
            case "prefix", "suffix" -> require(operand.isTextual()
                            || operand.isObject() && operand.size() == 1 && operand.path("equals-ignore-case").isTextual(),
                    operator.getKey() + " takes a string", matcher, source);
            case "equals-ignore-case" -> require(operand.isTextual(), "equals-ignore-case takes a string", matcher, source);
            case "anything-but" -> validateAnythingBut(operand, matcher, source);
            case "numeric" -> validateNumeric(operand, matcher, source);
            default -> throw unsupported(operator.getKey(), source);
        }
    }

    private static void validateAnythingBut(JsonNode operand, JsonNode matcher, String source) {
        if (operand.isArray()) {
            operand.forEach(one -> require(one.isValueNode(), "anything-but lists plain values", matcher, source));
        } else if (operand.isObject()) {
            require(operand.size() == 1, "anything-but takes one operator", matcher, source);
            String name = operand.fieldNames().next();
            require((name.equals("prefix") || name.equals("suffix") || name.equals("equals-ignore-case"))
                    && operand.get(name).isTextual(), "anything-but takes prefix, suffix or equals-ignore-case", matcher, source);
        } else {
            require(operand.isValueNode(), "anything-but takes a value or a list", matcher, source);
        }
    }

    private static void validateNumeric(JsonNode operand, JsonNode matcher, String source) {
        require(operand.isArray() && (operand.size() == 2 || operand.size() == 4), "numeric takes one or two comparisons",
                matcher, source);
        for (int i = 0; i < operand.size(); i += 2) {
            String operator = operand.get(i).asText();
            require(operand.get(i).isTextual() && (operator.equals("=") || operator.equals("<") || operator.equals("<=")
                    || operator.equals(">") || operator.equals(">=")), "numeric operators are = < <= > >=", matcher, source);
            require(operand.get(i + 1).isNumber(), "numeric compares with numbers", matcher, source);
        }
    }

    private static void require(boolean condition, String rule, JsonNode matcher, String source) {
        if (!condition) {
            throw new IllegalArgumentException("invalid filter operator " + matcher + " (" + rule + ") in " + source);
        }
    }

    private static IllegalArgumentException unsupported(String operator, String source) {
        return new IllegalArgumentException("filter operator '" + operator + "' is not supported by the local runtime"
                + " (supported: exact values, exists, prefix, suffix, equals-ignore-case, anything-but, numeric): " + source);
    }
}
