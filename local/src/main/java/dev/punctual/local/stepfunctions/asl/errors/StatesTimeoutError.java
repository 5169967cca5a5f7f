package dev.punctual.local.stepfunctions.asl.errors;

/** {@code States.Timeout}: a Task ran longer than its {@code TimeoutSeconds}. */
public final class StatesTimeoutError extends AslError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.Timeout";

    private static final long serialVersionUID = 1L;

    public StatesTimeoutError(String cause) {
        super(NAME, cause);
    }
}
