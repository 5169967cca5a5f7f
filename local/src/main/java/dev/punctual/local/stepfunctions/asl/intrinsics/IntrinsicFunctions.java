package dev.punctual.local.stepfunctions.asl.intrinsics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.StatesIntrinsicFailureError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * The intrinsic functions of the JSONPath query language. Wrong argument counts or types raise
 * {@code States.IntrinsicFailure} naming the function and what was expected.
 */
public final class IntrinsicFunctions {

    /** Longest input {@code States.Base64Encode}/{@code Base64Decode}/{@code Hash} accept, as AWS documents. */
    static final int MAX_STRING_INPUT = 10_000;
    /** Most elements {@code States.ArrayRange} may produce, as AWS documents. */
    static final int MAX_RANGE_ELEMENTS = 1_000;

    private static final int UNBOUNDED = Integer.MAX_VALUE;
    private static final JsonNodeFactory NODES = Json.MAPPER.getNodeFactory();
    private static final Map<String, String> HASH_ALGORITHMS = Map.of(
            "MD5", "MD5", "SHA-1", "SHA-1", "SHA-256", "SHA-256", "SHA-384", "SHA-384", "SHA-512", "SHA-512");

    /** Minimum and maximum argument counts per function. */
    private static final Map<String, int[]> ARITY = Map.ofEntries(
            Map.entry("States.Format", new int[] {1, UNBOUNDED}),
            Map.entry("States.StringToJson", new int[] {1, 1}),
            Map.entry("States.JsonToString", new int[] {1, 1}),
            Map.entry("States.Array", new int[] {0, UNBOUNDED}),
            Map.entry("States.ArrayPartition", new int[] {2, 2}),
            Map.entry("States.ArrayContains", new int[] {2, 2}),
            Map.entry("States.ArrayRange", new int[] {3, 3}),
            Map.entry("States.ArrayGetItem", new int[] {2, 2}),
            Map.entry("States.ArrayLength", new int[] {1, 1}),
            Map.entry("States.ArrayUnique", new int[] {1, 1}),
            Map.entry("States.Base64Encode", new int[] {1, 1}),
            Map.entry("States.Base64Decode", new int[] {1, 1}),
            Map.entry("States.Hash", new int[] {2, 2}),
            Map.entry("States.JsonMerge", new int[] {3, 3}),
            Map.entry("States.MathRandom", new int[] {2, 3}),
            Map.entry("States.MathAdd", new int[] {2, 2}),
            Map.entry("States.StringSplit", new int[] {2, 2}),
            Map.entry("States.UUID", new int[] {0, 0}));

    private IntrinsicFunctions() {
    }

    /** Whether {@code name} is a supported intrinsic function. */
    public static boolean isKnown(String name) {
        return ARITY.containsKey(name);
    }

    static void checkArity(String name, int count) {
        int[] bounds = ARITY.get(name);
        if (count < bounds[0] || count > bounds[1]) {
            String expected = bounds[0] == bounds[1] ? String.valueOf(bounds[0])
                    : bounds[1] == UNBOUNDED ? "at least " + bounds[0] : bounds[0] + " to " + bounds[1];
            throw new IllegalArgumentException("Invalid number of arguments in " + name + ": expected " + expected
                    + ", got " + count);
        }
    }

    /** Resolves a path argument; raises {@code States.Runtime} when it matches nothing. */
    public interface PathResolver {
        JsonNode resolve(dev.punctual.local.stepfunctions.asl.paths.JsonPaths.Path path);
    }

    /** Evaluates a parsed call. */
    public static JsonNode evaluate(IntrinsicExpression.Call call, PathResolver paths) {
        List<JsonNode> args = new ArrayList<>(call.arguments().size());
        for (IntrinsicExpression argument : call.arguments()) {
            if (argument instanceof IntrinsicExpression.Literal literal) {
                args.add(literal.value());
            } else if (argument instanceof IntrinsicExpression.PathRef ref) {
                args.add(paths.resolve(ref.path()));
            } else {
                args.add(evaluate((IntrinsicExpression.Call) argument, paths));
            }
        }
        String name = call.name();
        return switch (name) {
            case "States.Format" -> format(call, args);
            case "States.StringToJson" -> stringToJson(name, args);
            case "States.JsonToString" -> TextNode.valueOf(Json.write(args.get(0)));
            case "States.Array" -> NODES.arrayNode().addAll(args);
            case "States.ArrayPartition" -> arrayPartition(name, args);
            case "States.ArrayContains" -> BooleanNode.valueOf(contains(array(name, args, 0), args.get(1)));
            case "States.ArrayRange" -> arrayRange(name, args);
            case "States.ArrayGetItem" -> arrayGetItem(name, args);
            case "States.ArrayLength" -> IntNode.valueOf(array(name, args, 0).size());
            case "States.ArrayUnique" -> arrayUnique(name, args);
            case "States.Base64Encode" -> TextNode.valueOf(Base64.getEncoder().encodeToString(
                    limited(name, string(name, args, 0)).getBytes(StandardCharsets.UTF_8)));
            case "States.Base64Decode" -> base64Decode(name, args);
            case "States.Hash" -> hash(name, args);
            case "States.JsonMerge" -> jsonMerge(name, args);
            case "States.MathRandom" -> mathRandom(name, args);
            case "States.MathAdd" -> mathAdd(name, args);
            case "States.StringSplit" -> stringSplit(name, args);
            case "States.UUID" -> TextNode.valueOf(UUID.randomUUID().toString());
            default -> throw failure(name, "unknown function");
        };
    }

    private static JsonNode format(IntrinsicExpression.Call call, List<JsonNode> args) {
        String name = call.name();
        if (!(call.arguments().get(0) instanceof IntrinsicExpression.Literal template) || !template.value().isTextual()) {
            throw failure(name, "the first argument must be a string literal template");
        }
        String raw = template.raw();
        StringBuilder out = new StringBuilder();
        int used = 0;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '\\' && i + 1 < raw.length()) {
                out.append(raw.charAt(++i));
            } else if (c == '{' && i + 1 < raw.length() && raw.charAt(i + 1) == '}') {
                used++;
                if (used >= args.size()) {
                    throw failure(name, "the template has more {} placeholders than there are arguments ("
                            + (args.size() - 1) + ")");
                }
                JsonNode arg = args.get(used);
                if (arg.isContainerNode()) {
                    throw failure(name, "argument " + (used + 1) + " must be a string, number, boolean or null, got "
                            + Json.write(arg));
                }
                out.append(arg.isTextual() ? arg.textValue() : Json.write(arg));
                i++;
            } else {
                out.append(c);
            }
        }
        if (used != args.size() - 1) {
            throw failure(name, "the template has " + used + " {} placeholders but " + (args.size() - 1)
                    + " arguments follow it");
        }
        return TextNode.valueOf(out.toString());
    }

    private static JsonNode stringToJson(String name, List<JsonNode> args) {
        String text = string(name, args, 0);
        try {
            return Json.parse(text);
        } catch (IllegalArgumentException e) {
            throw failure(name, "the argument is not valid JSON text: " + e.getMessage());
        }
    }

    private static JsonNode arrayPartition(String name, List<JsonNode> args) {
        ArrayNode array = array(name, args, 0);
        int size = integer(name, args, 1);
        if (size <= 0) {
            throw failure(name, "the chunk size must be a positive integer, got " + size);
        }
        ArrayNode result = NODES.arrayNode();
        ArrayNode chunk = null;
        for (int i = 0; i < array.size(); i++) {
            if (i % size == 0) {
                chunk = result.addArray();
            }
            chunk.add(array.get(i));
        }
        return result;
    }

    private static boolean contains(ArrayNode array, JsonNode value) {
        for (JsonNode element : array) {
            if (sameJson(element, value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameJson(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }

    private static JsonNode arrayRange(String name, List<JsonNode> args) {
        int start = integer(name, args, 0);
        int end = integer(name, args, 1);
        int step = integer(name, args, 2);
        if (step == 0) {
            throw failure(name, "the step must not be 0");
        }
        long count = (step > 0 ? (long) end - start : (long) start - end) / Math.abs((long) step) + 1;
        if (count > MAX_RANGE_ELEMENTS) {
            throw failure(name, "the range would have " + count + " elements; at most " + MAX_RANGE_ELEMENTS
                    + " are allowed");
        }
        ArrayNode result = NODES.arrayNode();
        for (long i = start; step > 0 ? i <= end : i >= end; i += step) {
            result.add((int) i);
        }
        return result;
    }

    private static JsonNode arrayGetItem(String name, List<JsonNode> args) {
        ArrayNode array = array(name, args, 0);
        int index = integer(name, args, 1);
        if (index < 0 || index >= array.size()) {
            throw failure(name, "index " + index + " is out of bounds for an array of " + array.size() + " elements");
        }
        return array.get(index);
    }

    private static JsonNode arrayUnique(String name, List<JsonNode> args) {
        ArrayNode result = NODES.arrayNode();
        for (JsonNode element : array(name, args, 0)) {
            if (!contains(result, element)) {
                result.add(element);
            }
        }
        return result;
    }

    private static JsonNode base64Decode(String name, List<JsonNode> args) {
        String text = limited(name, string(name, args, 0));
        try {
            return TextNode.valueOf(new String(Base64.getDecoder().decode(text), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw failure(name, "the argument is not valid Base64: " + e.getMessage());
        }
    }

    private static JsonNode hash(String name, List<JsonNode> args) {
        JsonNode data = args.get(0);
        String text = limited(name, data.isTextual() ? data.textValue() : Json.write(data));
        String algorithm = string(name, args, 1);
        String javaName = HASH_ALGORITHMS.get(algorithm);
        if (javaName == null) {
            throw failure(name, "unsupported algorithm '" + algorithm + "'; use one of MD5, SHA-1, SHA-256, SHA-384, SHA-512");
        }
        try {
            byte[] digest = MessageDigest.getInstance(javaName).digest(text.getBytes(StandardCharsets.UTF_8));
            return TextNode.valueOf(HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("The JVM lacks " + javaName + ", which every Java platform must provide", e);
        }
    }

    private static JsonNode jsonMerge(String name, List<JsonNode> args) {
        if (!args.get(0).isObject() || !args.get(1).isObject()) {
            throw failure(name, "the first two arguments must be JSON objects");
        }
        if (!args.get(2).isBoolean()) {
            throw failure(name, "the third argument must be a boolean");
        }
        if (args.get(2).booleanValue()) {
            throw failure(name, "deep merge is not supported; the third argument must be false");
        }
        ObjectNode merged = ((ObjectNode) args.get(0)).deepCopy();
        merged.setAll((ObjectNode) args.get(1).deepCopy());
        return merged;
    }

    private static JsonNode mathRandom(String name, List<JsonNode> args) {
        int start = integer(name, args, 0);
        int end = integer(name, args, 1);
        if (end <= start) {
            throw failure(name, "the end (" + end + ") must be greater than the start (" + start + ")");
        }
        Random random = args.size() == 3 ? new Random(integer(name, args, 2)) : new Random();
        return IntNode.valueOf(start + random.nextInt(end - start));
    }

    private static JsonNode mathAdd(String name, List<JsonNode> args) {
        long sum = (long) integer(name, args, 0) + integer(name, args, 1);
        if (sum < Integer.MIN_VALUE || sum > Integer.MAX_VALUE) {
            throw failure(name, "the sum " + sum + " is outside the 32-bit integer range");
        }
        return IntNode.valueOf((int) sum);
    }

    private static JsonNode stringSplit(String name, List<JsonNode> args) {
        String text = string(name, args, 0);
        String delimiters = string(name, args, 1);
        ArrayNode result = NODES.arrayNode();
        StringBuilder token = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (delimiters.indexOf(c) >= 0) {
                if (token.length() > 0) {
                    result.add(token.toString());
                }
                token.setLength(0);
            } else {
                token.append(c);
            }
        }
        if (token.length() > 0) {
            result.add(token.toString());
        }
        return result;
    }

    private static String limited(String name, String text) {
        if (text.length() > MAX_STRING_INPUT) {
            throw failure(name, "the input is " + text.length() + " characters; at most " + MAX_STRING_INPUT
                    + " are allowed");
        }
        return text;
    }

    private static ArrayNode array(String name, List<JsonNode> args, int index) {
        JsonNode arg = args.get(index);
        if (!(arg instanceof ArrayNode array)) {
            throw failure(name, "argument " + (index + 1) + " must be an array, got " + Json.write(arg));
        }
        return array;
    }

    private static String string(String name, List<JsonNode> args, int index) {
        JsonNode arg = args.get(index);
        if (!arg.isTextual()) {
            throw failure(name, "argument " + (index + 1) + " must be a string, got " + Json.write(arg));
        }
        return arg.textValue();
    }

    private static int integer(String name, List<JsonNode> args, int index) {
        JsonNode arg = args.get(index);
        if (arg.isNumber()) {
            try {
                return arg.decimalValue().stripTrailingZeros().intValueExact();
            } catch (ArithmeticException e) {
                throw failure(name, "argument " + (index + 1) + " must be a 32-bit integer, got " + Json.write(arg));
            }
        }
        throw failure(name, "argument " + (index + 1) + " must be an integer, got " + Json.write(arg));
    }

    private static AslError failure(String name, String what) {
        return new StatesIntrinsicFailureError("Invalid arguments in " + name + ": " + what);
    }
}
