package dev.punctual.local.stepfunctions.asl.paths;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.InvalidPathException;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.PathNotFoundException;
import com.jayway.jsonpath.spi.json.JacksonJsonNodeJsonProvider;
import com.jayway.jsonpath.spi.mapper.JacksonMappingProvider;
import java.util.Optional;

/**
 * ASL Paths ({@code $.a.b}, {@code $.items[0]}, {@code $..x}, filters) evaluated with Jayway
 * json-path over Jackson trees, and context-object paths ({@code $$.Execution.Id}). A definite path
 * gives its single value, an indefinite one the list of matches, as Step Functions does.
 */
public final class JsonPaths {

    private static final Configuration CONFIGURATION = Configuration.builder()
            .jsonProvider(new JacksonJsonNodeJsonProvider(Json.MAPPER))
            .mappingProvider(new JacksonMappingProvider(Json.MAPPER))
            .build();

    private JsonPaths() {
    }

    /** A compiled path, against the state's data ({@code $}) or the context object ({@code $$}). */
    public record Path(String text, JsonPath compiled, boolean context) {

        /** The value the path selects, or empty when it matches nothing. */
        public Optional<JsonNode> find(JsonNode data, JsonNode contextObject) {
            JsonNode root = context ? contextObject : data;
            if (root == null) {
                return Optional.empty();
            }
            try {
                Object value = compiled.read(root, CONFIGURATION);
                if (value == null) {
                    return Optional.of(NullNode.getInstance());
                }
                return Optional.of(value instanceof JsonNode node ? node : Json.MAPPER.valueToTree(value));
            } catch (PathNotFoundException e) {
                return Optional.empty();
            } catch (RuntimeException e) {
                // Jayway reports a path step applied to the wrong type (e.g. a field of a string) this way.
                return Optional.empty();
            }
        }

        /**
         * Why the path selects nothing in this data, as Jayway json-path words it and Step Functions quotes
         * it after the path: {@code No results for path: $['a']['b']} when the last step is missing,
         * {@code Missing property in path $['a']} when a step on the way is.
         */
        public String noResults(JsonNode data, JsonNode contextObject) {
            JsonNode root = context ? contextObject : data;
            if (root != null) {
                try {
                    compiled.read(root, CONFIGURATION);
                } catch (RuntimeException e) {
                    if (e.getMessage() != null) {
                        return e.getMessage();
                    }
                }
            }
            return "No results for path: " + compiled.getPath();
        }

        public boolean definite() {
            return compiled.isDefinite();
        }
    }

    /** Jayway accepts some unterminated paths (e.g. {@code $.a[}) at compile time; Step Functions does not. */
    private static void requireBalanced(String text) {
        int depth = 0;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '[' || c == '(') {
                depth++;
            } else if (c == ']' || c == ')') {
                depth--;
                if (depth < 0) {
                    break;
                }
            }
        }
        if (depth != 0 || quote != 0 || text.endsWith(".")) {
            throw new IllegalArgumentException("'" + text + "' is not a valid JSONPath: unbalanced brackets,"
                    + " parentheses or quotes, or a trailing '.'");
        }
    }

    /**
     * Compiles a path.
     *
     * @throws IllegalArgumentException saying why when it is not a valid path
     */
    public static Path compile(String text) {
        if (text == null || !text.startsWith("$")) {
            throw new IllegalArgumentException("'" + text + "' is not a JSONPath: it must start with '$'");
        }
        requireBalanced(text);
        boolean context = text.startsWith("$$");
        String path = context ? text.substring(1) : text;
        try {
            return new Path(text, JsonPath.compile(path), context);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + text + "' is not a valid JSONPath: " + e.getMessage(), e);
        }
    }
}
