package dev.punctual.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A template as CloudFormation would render it for given parameter values, deploying nothing: parameters
 * checked against their constraints, rules asserted, conditions evaluated, resources and outputs whose
 * condition is false left out, {@code Ref} to a parameter, {@code Fn::If}, {@code AWS::NoValue},
 * {@code Fn::Select} and {@code Fn::Split} of known values applied, and {@code Fn::Join} of known parts
 * joined. What only a deployment knows (pseudo parameters, resource references) is left as it is.
 */
final class RenderedTemplate {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String NO_VALUE = "AWS::NoValue";

    private final JsonNode template;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private final Map<String, Boolean> conditions = new LinkedHashMap<>();

    private RenderedTemplate(JsonNode template, Map<String, String> given) {
        this.template = template;
        for (Iterator<Map.Entry<String, JsonNode>> it = template.path("Parameters").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> parameter = it.next();
            parameters.put(parameter.getKey(), value(parameter.getKey(), parameter.getValue(), given));
        }
        given.keySet().stream().filter(name -> !parameters.containsKey(name)).findFirst().ifPresent(name -> {
            throw new IllegalArgumentException("The template has no parameter " + name);
        });
    }

    /**
     * The rendered template: its resources and outputs, each without its {@code Condition}.
     *
     * @throws IllegalArgumentException when a value breaks its parameter's constraints or a rule's assertion
     */
    static JsonNode render(JsonNode template, Map<String, String> parameterValues) {
        return new RenderedTemplate(template, parameterValues).render();
    }

    private JsonNode render() {
        for (Iterator<String> it = template.path("Conditions").fieldNames(); it.hasNext(); ) {
            condition(it.next());
        }
        assertRules();
        ObjectNode rendered = NODES.objectNode();
        rendered.set("Resources", section(template.path("Resources")));
        rendered.set("Outputs", section(template.path("Outputs")));
        return rendered;
    }

    private ObjectNode section(JsonNode entries) {
        ObjectNode kept = NODES.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            JsonNode condition = entry.getValue().path("Condition");
            if (!condition.isMissingNode() && !condition(condition.asText())) {
                continue;
            }
            ObjectNode copy = (ObjectNode) resolve(entry.getValue());
            copy.remove("Condition");
            kept.set(entry.getKey(), copy);
        }
        return kept;
    }

    private void assertRules() {
        for (Iterator<Map.Entry<String, JsonNode>> it = template.path("Rules").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> rule = it.next();
            JsonNode when = rule.getValue().path("RuleCondition");
            if (!when.isMissingNode() && !truth(when)) {
                continue;
            }
            for (JsonNode assertion : rule.getValue().path("Assertions")) {
                if (!truth(assertion.path("Assert"))) {
                    throw new IllegalArgumentException("Rule " + rule.getKey() + ": "
                            + assertion.path("AssertDescription").asText());
                }
            }
        }
    }

    private boolean condition(String name) {
        Boolean known = conditions.get(name);
        if (known == null) {
            JsonNode expression = template.path("Conditions").path(name);
            if (expression.isMissingNode()) {
                throw new IllegalArgumentException("No condition " + name);
            }
            known = truth(expression);
            conditions.put(name, known);
        }
        return known;
    }

    private boolean truth(JsonNode expression) {
        Map.Entry<String, JsonNode> function = function(expression);
        if (function == null) {
            throw new IllegalArgumentException("Not a condition: " + expression);
        }
        JsonNode arguments = function.getValue();
        return switch (function.getKey()) {
            case "Condition" -> condition(arguments.asText());
            case "Fn::Equals" -> resolve(arguments.get(0)).equals(resolve(arguments.get(1)));
            case "Fn::Not" -> !truth(arguments.get(0));
            case "Fn::And" -> all(arguments, true);
            case "Fn::Or" -> !all(arguments, false);
            default -> throw new IllegalArgumentException("Not a condition function: " + function.getKey());
        };
    }

    /** {@code Fn::And} when {@code wanted} is true; the negation of {@code Fn::Or} when it is false. */
    private boolean all(JsonNode arguments, boolean wanted) {
        for (JsonNode argument : arguments) {
            if (truth(argument) != wanted) {
                return false;
            }
        }
        return true;
    }

    /** The value rendered, or {@code null} where it is {@code AWS::NoValue}. */
    private JsonNode resolve(JsonNode value) {
        Map.Entry<String, JsonNode> function = function(value);
        if (function != null) {
            return apply(function.getKey(), function.getValue(), value);
        }
        if (value.isObject()) {
            ObjectNode copy = NODES.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                JsonNode resolved = resolve(field.getValue());
                if (resolved != null) {
                    copy.set(field.getKey(), resolved);
                }
            }
            return copy;
        }
        if (value.isArray()) {
            ArrayNode copy = NODES.arrayNode();
            for (JsonNode element : value) {
                JsonNode resolved = resolve(element);
                if (resolved != null) {
                    copy.add(resolved);
                }
            }
            return copy;
        }
        return value;
    }

    private JsonNode apply(String name, JsonNode arguments, JsonNode original) {
        switch (name) {
            case "Ref" -> {
                String target = arguments.asText();
                if (NO_VALUE.equals(target)) {
                    return null;
                }
                return parameters.containsKey(target) ? TextNode.valueOf(parameters.get(target)) : original;
            }
            case "Fn::If" -> {
                return resolve(condition(arguments.get(0).asText()) ? arguments.get(1) : arguments.get(2));
            }
            case "Fn::Join" -> {
                return join(arguments.get(0).asText(), resolve(arguments.get(1)));
            }
            case "Fn::Split" -> {
                JsonNode source = resolve(arguments.get(1));
                if (!source.isTextual()) {
                    return split(arguments.get(0), source);
                }
                ArrayNode parts = NODES.arrayNode();
                for (String part : source.asText().split(Pattern.quote(arguments.get(0).asText()), -1)) {
                    parts.add(part);
                }
                return parts;
            }
            case "Fn::Select" -> {
                JsonNode list = resolve(arguments.get(1));
                int index = arguments.get(0).asInt();
                if (list.isArray() && function(list) == null) {
                    return list.get(index);
                }
                ArrayNode kept = NODES.arrayNode().add(index).add(list);
                return NODES.objectNode().set("Fn::Select", kept);
            }
            default -> {
                ObjectNode copy = NODES.objectNode();
                copy.set(name, resolve(arguments));
                return copy;
            }
        }
    }

    private static JsonNode split(JsonNode separator, JsonNode source) {
        ArrayNode kept = NODES.arrayNode().add(separator).add(source);
        return NODES.objectNode().set("Fn::Split", kept);
    }

    /** Adjacent known parts joined; a single string when every part is known. */
    private static JsonNode join(String separator, JsonNode parts) {
        if (!parts.isArray() || function(parts) != null) {
            return NODES.objectNode().set("Fn::Join", NODES.arrayNode().add(separator).add(parts));
        }
        List<JsonNode> merged = new ArrayList<>();
        StringBuilder text = null;
        for (JsonNode part : parts) {
            if (part.isValueNode()) {
                text = text == null ? new StringBuilder(part.asText()) : text.append(separator).append(part.asText());
            } else {
                if (text != null) {
                    merged.add(TextNode.valueOf(text.toString()));
                    text = null;
                }
                merged.add(part);
            }
        }
        if (text != null) {
            merged.add(TextNode.valueOf(text.toString()));
        }
        if (merged.size() == 1 && merged.get(0).isTextual()) {
            return merged.get(0);
        }
        return NODES.objectNode().set("Fn::Join", NODES.arrayNode().add(separator).add(NODES.arrayNode().addAll(merged)));
    }

    /** The intrinsic function a value is, or {@code null} when it is plain data. */
    static Map.Entry<String, JsonNode> function(JsonNode value) {
        if (value != null && value.isObject() && value.size() == 1) {
            Map.Entry<String, JsonNode> only = value.fields().next();
            if (only.getKey().equals("Ref") || only.getKey().equals("Condition") || only.getKey().startsWith("Fn::")) {
                return only;
            }
        }
        return null;
    }

    private static String value(String name, JsonNode parameter, Map<String, String> given) {
        String value = given.containsKey(name) ? given.get(name)
                : parameter.has("Default") ? parameter.get("Default").asText() : null;
        if (value == null) {
            throw new IllegalArgumentException("Parameter " + name + " has no default: give it a value");
        }
        List<String> allowed = new ArrayList<>();
        parameter.path("AllowedValues").forEach(each -> allowed.add(each.asText()));
        if (!allowed.isEmpty() && !allowed.contains(value)) {
            throw new IllegalArgumentException(name + "=" + value + " is not one of " + allowed);
        }
        if (parameter.has("AllowedPattern") && !Pattern.compile(parameter.get("AllowedPattern").asText())
                .matcher(value).matches()) {
            throw new IllegalArgumentException(name + "=" + value + " does not match "
                    + parameter.get("AllowedPattern").asText());
        }
        if (parameter.has("MaxLength") && value.length() > parameter.get("MaxLength").asInt()) {
            throw new IllegalArgumentException(name + " is longer than " + parameter.get("MaxLength").asInt());
        }
        if ("Number".equals(parameter.path("Type").asText())) {
            BigDecimal number = new BigDecimal(value);
            if (parameter.has("MinValue") && number.compareTo(parameter.get("MinValue").decimalValue()) < 0
                    || parameter.has("MaxValue") && number.compareTo(parameter.get("MaxValue").decimalValue()) > 0) {
                throw new IllegalArgumentException(name + "=" + value + " is outside "
                        + parameter.path("MinValue") + ".." + parameter.path("MaxValue"));
            }
        }
        return value;
    }
}
