package dev.punctual.peritem;

import java.util.Objects;

/** An execution to start: its deterministic name and its input (whose {@code chainName} is the name). */
public record ExecutionRequest(String name, ExecutionInput input) {

    public ExecutionRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(input, "input");
        if (!name.equals(input.chainName())) {
            throw new IllegalArgumentException("the input's chainName must be the execution's name");
        }
    }

    /** The same input under another name: a restart after a closed execution held the name. */
    public ExecutionRequest renamed(String newName) {
        return new ExecutionRequest(newName, input.withChainName(newName));
    }
}
