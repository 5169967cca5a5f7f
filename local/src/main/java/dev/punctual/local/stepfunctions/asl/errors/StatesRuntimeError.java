package dev.punctual.local.stepfunctions.asl.errors;

/**
 * {@code States.Runtime}: the execution hit something it cannot go on from (a path that selects
 * nothing, a value of the wrong type); never retried or caught.
 */
public final class StatesRuntimeError extends AslError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.Runtime";

    private static final long serialVersionUID = 1L;

    public StatesRuntimeError(String cause) {
        super(NAME, cause);
    }
}
