package dev.punctual.local.stepfunctions.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Lambda functions that run in this process, by function name. Task states reach them through
 * {@code arn:aws:states:::lambda:invoke} or a plain function ARN; an exception thrown by a function is
 * the function's error, named by its class as the Java runtime's {@code errorType} is.
 */
public final class LambdaFunctions {

    private final Map<String, Function<JsonNode, JsonNode>> functions = new ConcurrentHashMap<>();

    /** Registers (or replaces) the function called {@code name}. */
    public LambdaFunctions register(String name, Function<JsonNode, JsonNode> function) {
        functions.put(name, function);
        return this;
    }

    /**
     * The function a name, partial ARN or full ARN ({@code arn:aws:lambda:us-east-1:123:function:name[:qualifier]})
     * refers to.
     */
    public Optional<Function<JsonNode, JsonNode>> find(String nameOrArn) {
        return Optional.ofNullable(functions.get(functionName(nameOrArn)));
    }

    static String functionName(String nameOrArn) {
        String[] parts = nameOrArn.split(":");
        int function = -1;
        for (int i = 0; i < parts.length; i++) {
            if (parts[i].equals("function")) {
                function = i;
            }
        }
        return function >= 0 && function + 1 < parts.length ? parts[function + 1] : parts[0];
    }
}
