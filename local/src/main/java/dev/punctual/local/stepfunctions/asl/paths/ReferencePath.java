package dev.punctual.local.stepfunctions.asl.paths;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.StatesResultPathMatchFailureError;
import java.util.ArrayList;
import java.util.List;

/**
 * A Reference Path as {@code ResultPath} takes it: a path that names exactly one node, with only
 * field names ({@code .name} or {@code ['name']}) and array indexes ({@code [0]}); no wildcards,
 * filters or deep scans.
 */
public final class ReferencePath {

    private final String text;
    private final List<Object> steps;

    private ReferencePath(String text, List<Object> steps) {
        this.text = text;
        this.steps = steps;
    }

    /**
     * Parses a reference path.
     *
     * @throws IllegalArgumentException saying why when it is not one
     */
    public static ReferencePath parse(String text) {
        if (text == null || !text.startsWith("$") || text.startsWith("$$")) {
            throw new IllegalArgumentException("'" + text + "' is not a reference path: it must start with '$'");
        }
        List<Object> steps = new ArrayList<>();
        int i = 1;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '.') {
                int end = i + 1;
                while (end < text.length() && text.charAt(end) != '.' && text.charAt(end) != '[') {
                    end++;
                }
                String name = text.substring(i + 1, end);
                if (name.isEmpty() || name.contains("*") || name.contains("@") || name.contains("(")) {
                    throw notReference(text);
                }
                steps.add(name);
                i = end;
            } else if (c == '[') {
                int close = text.indexOf(']', i);
                if (close < 0) {
                    throw notReference(text);
                }
                String inner = text.substring(i + 1, close).trim();
                if (inner.length() >= 2 && (inner.startsWith("'") && inner.endsWith("'")
                        || inner.startsWith("\"") && inner.endsWith("\""))) {
                    steps.add(inner.substring(1, inner.length() - 1));
                } else if (inner.matches("\\d+")) {
                    steps.add(Integer.valueOf(inner));
                } else {
                    throw notReference(text);
                }
                i = close + 1;
            } else {
                throw notReference(text);
            }
        }
        return new ReferencePath(text, List.copyOf(steps));
    }

    private static IllegalArgumentException notReference(String text) {
        return new IllegalArgumentException("'" + text + "' is not a reference path: only field names and"
                + " array indexes are allowed, no wildcards, filters or '..'");
    }

    /**
     * Places {@code value} at this path in a copy of {@code target}, creating missing objects on the
     * way ({@code $} replaces the whole target).
     *
     * @throws AslError {@code States.ResultPathMatchFailure} when the path runs through a non-object
     */
    public JsonNode placeInto(JsonNode target, JsonNode value) {
        if (steps.isEmpty()) {
            return value;
        }
        if (!target.isObject() && !(target.isArray() && steps.get(0) instanceof Integer)) {
            throw mismatch(target);
        }
        JsonNode root = target.deepCopy();
        JsonNode node = root;
        for (int s = 0; s < steps.size(); s++) {
            Object step = steps.get(s);
            boolean last = s == steps.size() - 1;
            if (step instanceof String name) {
                if (!(node instanceof ObjectNode object)) {
                    throw mismatch(target);
                }
                if (last) {
                    object.set(name, value);
                } else {
                    JsonNode child = object.get(name);
                    if (child == null || child.isNull()) {
                        child = object.putObject(name);
                    }
                    node = child;
                }
            } else {
                int index = (Integer) step;
                if (!(node instanceof ArrayNode array) || index >= array.size()) {
                    throw mismatch(target);
                }
                if (last) {
                    array.set(index, value);
                } else {
                    node = array.get(index);
                }
            }
        }
        return root;
    }

    private AslError mismatch(JsonNode target) {
        return new StatesResultPathMatchFailureError("Unable to apply ReferencePath " + text
                + " to input " + Json.write(target));
    }
}
