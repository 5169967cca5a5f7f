package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Parses Amazon States Language definitions and runs executions of them. This is the seam between
 * the language (states, paths, intrinsic functions, Retry/Catch) and the executions backend
 * (registry, durability, the Step Functions API), which only sees these types.
 */
public interface AslInterpreter {

    /**
     * Parses and validates a definition, including that every Task resource is supported.
     *
     * @throws InvalidDefinitionException with the JSON path of the first problem found
     */
    ParsedDefinition parse(String definitionJson);

    /** Starts a new execution at the definition's {@code StartAt} state. */
    ExecutionRun start(ParsedDefinition definition, ExecutionContext context, JsonNode input, ExecutionObserver observer);

    /**
     * Continues an execution from a checkpoint its observer persisted: a Wait checkpoint waits until
     * its recorded {@link Checkpoint#wakeAt()} (never recomputed), any other state runs again from its
     * start with its recorded input.
     */
    ExecutionRun resume(ParsedDefinition definition, ExecutionContext context, Checkpoint checkpoint, ExecutionObserver observer);
}
