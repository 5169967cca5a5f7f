package dev.punctual.local.stepfunctions.asl.errors;

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

    /**
     * A problem AWS reports under {@code code}, at the JSON pointer {@code pointer} ({@code ""} for
     * the whole definition).
     */
    public static InvalidDefinitionException of(String code, String message, String pointer) {
        return new InvalidDefinitionException(code + ": " + message + (pointer.isEmpty() ? "" : " at " + pointer));
    }

    /** A field that is missing, unknown, of the wrong type or out of range: {@code SCHEMA_VALIDATION_FAILED}. */
    public static InvalidDefinitionException schema(String message, String pointer) {
        return of("SCHEMA_VALIDATION_FAILED", message, pointer);
    }
}
