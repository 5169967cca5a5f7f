package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.intrinsics.IntrinsicExpression;
import dev.punctual.local.stepfunctions.asl.intrinsics.IntrinsicFunctions;
import dev.punctual.local.stepfunctions.asl.intrinsics.IntrinsicParser;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Payload Template ({@code Parameters}, {@code ItemSelector}, {@code ResultSelector}): a JSON value
 * whose object fields named {@code <key>.$} take their value from a path, a context path or an
 * intrinsic function, at any depth, inside objects and arrays. Compiled once at parse time so a bad
 * path or intrinsic is refused with the definition. It lives with the states, beside {@link PathField},
 * because it is the type of their template fields; paths and intrinsic functions, which it is made of,
 * sit below.
 */
public final class PayloadTemplate {

    private interface Node {
        JsonNode evaluate(JsonNode data, JsonNode context);
    }

    private final Node root;

    private PayloadTemplate(Node root) {
        this.root = root;
    }

    /**
     * Compiles a template.
     *
     * @param where JSON pointer of the template in the definition, for error messages
     * @throws IllegalArgumentException naming the pointer of the offending field
     */
    public static PayloadTemplate compile(JsonNode template, String where) {
        return new PayloadTemplate(compileNode(template, where));
    }

    /**
     * Compiles one path, context path or intrinsic function written in a field of its own, not as a
     * template's {@code .$} key (a Fail state's {@code ErrorPath} and {@code CausePath}): its template's
     * value is the expression's, and a path that selects nothing names {@code field} as written.
     *
     * @param where JSON pointer of the field in the definition, for error messages
     * @throws IllegalArgumentException naming the pointer when the expression is not valid
     */
    public static PayloadTemplate expression(String field, String expression, String where) {
        return new PayloadTemplate(compileDynamic(field, expression, where));
    }

    /** The template's value for the given state data and context object. */
    public JsonNode evaluate(JsonNode data, JsonNode context) {
        return root.evaluate(data, context);
    }

    private static Node compileNode(JsonNode template, String where) {
        if (template.isObject()) {
            List<String> keys = new ArrayList<>();
            List<Node> values = new ArrayList<>();
            for (Map.Entry<String, JsonNode> field : template.properties()) {
                String key = field.getKey();
                String pointer = where + "/" + key;
                if (key.endsWith(".$")) {
                    if (!field.getValue().isTextual()) {
                        throw new IllegalArgumentException("The value of field '" + key + "' must be a path or an"
                                + " intrinsic function string at " + pointer);
                    }
                    keys.add(key.substring(0, key.length() - 2));
                    values.add(compileDynamic(key, field.getValue().textValue(), pointer));
                } else {
                    keys.add(key);
                    values.add(compileNode(field.getValue(), pointer));
                }
            }
            return (data, context) -> {
                ObjectNode out = Json.MAPPER.createObjectNode();
                for (int i = 0; i < keys.size(); i++) {
                    out.set(keys.get(i), values.get(i).evaluate(data, context));
                }
                return out;
            };
        }
        if (template.isArray()) {
            List<Node> elements = new ArrayList<>();
            int i = 0;
            for (JsonNode element : template) {
                elements.add(compileNode(element, where + "/" + i++));
            }
            return (data, context) -> {
                ArrayNode out = Json.MAPPER.createArrayNode();
                for (Node element : elements) {
                    out.add(element.evaluate(data, context));
                }
                return out;
            };
        }
        JsonNode constant = template.deepCopy();
        return (data, context) -> constant;
    }

    private static Node compileDynamic(String key, String expression, String pointer) {
        if (IntrinsicParser.looksLikeCall(expression)) {
            IntrinsicExpression.Call call;
            try {
                call = IntrinsicParser.parse(expression);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + " at " + pointer, e);
            }
            return (data, context) -> IntrinsicFunctions.evaluate(call,
                    path -> resolve(path, key, data, context));
        }
        JsonPaths.Path path;
        try {
            path = JsonPaths.compile(expression);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " at " + pointer, e);
        }
        return (data, context) -> resolve(path, key, data, context);
    }

    private static JsonNode resolve(JsonPaths.Path path, String key, JsonNode data, JsonNode context) {
        return path.find(data, context).orElseThrow(() -> new StatesRuntimeError("The JSONPath '" + path.text()
                + "' specified for the field '" + key + "' could not be found in the input '"
                        + Json.write(path.context() ? context : data) + "'"));
    }
}
