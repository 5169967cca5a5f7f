package dev.punctual.local.stepfunctions.asl;

/**
 * A definition that Step Functions would refuse at CreateStateMachine. The message names the JSON
 * path of the problem, as AWS's {@code InvalidDefinition} does, e.g.
 * {@code "MISSING_TRANSITION_TARGET: Missing 'Next' target: Nowhere at /States/Start/Next"}.
 */
public final class InvalidDefinitionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InvalidDefinitionException(String message) {
        super(message);
    }
}
