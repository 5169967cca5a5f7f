package dev.punctual.local.stepfunctions.asl.errors;

/**
 * {@code States.DataLimitExceeded}: a state's input, result or output is over the payload limit; a
 * terminal error that only its own name matches.
 */
public final class StatesDataLimitExceededError extends AslError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.DataLimitExceeded";

    private static final long serialVersionUID = 1L;

    public StatesDataLimitExceededError(String cause) {
        super(NAME, cause);
    }
}
