package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import dev.punctual.local.stepfunctions.asl.paths.ReferencePath;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One JSON value of a definition and the JSON pointer to it, with the readers each part of a
 * definition (a state, a Retrier, a Catcher, a Choice rule) uses to check its own fields. Every
 * problem is an {@link InvalidDefinitionException} that names the pointer of the field at fault.
 */
public final class DefinitionNode {

    /** The parser, as a part of a definition sees it: what that part needs beyond its own fields. */
    public interface Parser {

        /** Reads a nested state machine (a Parallel branch, a Map's item processor). */
        StateMachineGraph graph(DefinitionNode node);

        /** Whether a registered task resource serves {@code resource}. */
        boolean resourceSupported(String resource);
    }

    private final JsonNode json;
    private final String pointer;
    private final Parser parser;

    public DefinitionNode(JsonNode json, String pointer, Parser parser) {
        this.json = json;
        this.pointer = pointer;
        this.parser = parser;
    }

    public JsonNode json() {
        return json;
    }

    public String pointer() {
        return pointer;
    }

    /** The pointer to {@code field} of this object. */
    public String pointer(String field) {
        return pointer + "/" + field;
    }

    public boolean has(String field) {
        return json.has(field);
    }

    public JsonNode get(String field) {
        return json.get(field);
    }

    /** {@code field} of this object; absent fields are a missing node. */
    public DefinitionNode field(String field) {
        return new DefinitionNode(json.path(field), pointer(field), parser);
    }

    /** Element {@code index} of this array. */
    public DefinitionNode element(int index) {
        return new DefinitionNode(json.get(index), pointer + "/" + index, parser);
    }

    public Parser parser() {
        return parser;
    }

    /** A schema error about this value. */
    public InvalidDefinitionException error(String message) {
        return InvalidDefinitionException.schema(message, pointer);
    }

    /** A schema error about {@code field} of this object. */
    public InvalidDefinitionException error(String field, String message) {
        return InvalidDefinitionException.schema(message, pointer(field));
    }

    /** Reads an element of an array, told whether it is the last one. */
    public interface ElementReader<T> {
        T read(DefinitionNode element, boolean last);
    }

    /** Reads each element of this array, which the definition calls {@code name}. */
    public <T> List<T> elements(String name, ElementReader<T> reader) {
        if (!json.isArray()) {
            throw error("'" + name + "' must be an array");
        }
        List<T> read = new ArrayList<>();
        for (int i = 0; i < json.size(); i++) {
            read.add(reader.read(element(i), i == json.size() - 1));
        }
        return List.copyOf(read);
    }

    /** The elements of the array {@code field}, which must be there and not be empty. */
    public List<DefinitionNode> nonEmptyArray(String field, String message) {
        JsonNode array = json.get(field);
        if (array == null || !array.isArray() || array.isEmpty()) {
            throw error(field, message);
        }
        List<DefinitionNode> elements = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            elements.add(field(field).element(i));
        }
        return elements;
    }

    /** Refuses a value that is not an object, and any field not in {@code allowed}. */
    public void allowOnly(Set<String> allowed) {
        allowOnly(allowed, "The field '%s' is not supported here");
    }

    /** Refuses any field not in {@code allowed}, with {@code message} ({@code %s}: the field). */
    public void allowOnly(Set<String> allowed, String message) {
        if (!json.isObject()) {
            throw error("Expected a JSON object");
        }
        for (Iterator<String> names = json.fieldNames(); names.hasNext();) {
            String field = names.next();
            if (!allowed.contains(field)) {
                throw error(field, String.format(message, field));
            }
        }
    }

    /** Refuses an object that has both fields. */
    public void exclusive(String first, String second) {
        if (json.has(first) && json.has(second)) {
            throw error("'" + first + "' and '" + second + "' cannot both be set");
        }
    }

    /** A string field, or {@code null} when absent. */
    public String optionalString(String field) {
        JsonNode value = json.get(field);
        if (value == null) {
            return null;
        }
        if (!value.isTextual()) {
            throw error(field, "'" + field + "' must be a string");
        }
        return value.textValue();
    }

    /** A string field that must be there. */
    public String requiredString(String field, String message) {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual()) {
            throw error(field, message);
        }
        return value.textValue();
    }

    /** A JSONPath field, or {@code null} when absent or JSON {@code null}. */
    public JsonPaths.Path optionalPath(String field) {
        JsonNode value = json.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        return field(field).path();
    }

    /** This value as a JSONPath. */
    public JsonPaths.Path path() {
        if (!json.isTextual()) {
            throw error("Expected a JSONPath string");
        }
        try {
            return JsonPaths.compile(json.textValue());
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** {@code InputPath} or {@code OutputPath}: absent, JSON {@code null}, or a JSONPath. */
    public PathField<JsonPaths.Path> pathField(String field) {
        return pathField(field, DefinitionNode::path);
    }

    /** {@code ResultPath}: absent, JSON {@code null}, or a reference path. */
    public PathField<ReferencePath> referencePathField(String field) {
        return pathField(field, DefinitionNode::referencePath);
    }

    private <P> PathField<P> pathField(String field, Function<DefinitionNode, P> read) {
        if (!json.has(field)) {
            return PathField.absent();
        }
        return json.get(field).isNull() ? PathField.ofNull() : PathField.of(read.apply(field(field)));
    }

    private ReferencePath referencePath() {
        if (!json.isTextual()) {
            throw error("Expected a reference path string");
        }
        try {
            return ReferencePath.parse(json.textValue());
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    /** A payload template field ({@code Parameters}, {@code ResultSelector}, ...), or {@code null} when absent. */
    public PayloadTemplate optionalTemplate(String field) {
        return json.has(field) ? template(field, json.get(field)) : null;
    }

    /** {@code template} compiled as a payload template, its errors reported at {@code field}. */
    public PayloadTemplate template(String field, JsonNode template) {
        try {
            return PayloadTemplate.compile(template, pointer(field));
        } catch (IllegalArgumentException e) {
            throw InvalidDefinitionException.schema(e.getMessage(), "");
        }
    }

    /** {@code field}'s path or intrinsic function, written without {@code .$} ({@link PayloadTemplate#expression}). */
    public PayloadTemplate expression(String field, String expression) {
        try {
            return PayloadTemplate.expression(field, expression, pointer(field));
        } catch (IllegalArgumentException e) {
            throw InvalidDefinitionException.schema(e.getMessage(), "");
        }
    }

    /** A positive whole number field, or {@code null} when absent. */
    public Long optionalPositiveInteger(String field) {
        return json.has(field) ? integer(field, 1, "Expected a positive integer, got " + Json.write(json.get(field)))
                : null;
    }

    /** A whole number field of at least zero, or {@code absent} when the field is not given. */
    public long nonNegativeInteger(String field, long absent) {
        return json.has(field) ? integer(field, 0, "'" + field + "' must be a non-negative integer") : absent;
    }

    private long integer(String field, int least, String message) {
        JsonNode value = json.get(field);
        if (!isInteger(value) || value.decimalValue().signum() < least) {
            throw error(field, message);
        }
        return value.decimalValue().longValueExact();
    }

    /** A whole number that fits a long. */
    private static boolean isInteger(JsonNode value) {
        if (!value.canConvertToExactIntegral()) {
            return false;
        }
        try {
            value.decimalValue().longValueExact();
            return true;
        } catch (ArithmeticException e) {
            return false;
        }
    }
}
