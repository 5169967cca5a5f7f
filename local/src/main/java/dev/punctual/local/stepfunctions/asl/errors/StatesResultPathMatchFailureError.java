package dev.punctual.local.stepfunctions.asl.errors;

/** {@code States.ResultPathMatchFailure}: a {@code ResultPath} runs through a value it cannot be placed into. */
public final class StatesResultPathMatchFailureError extends AslError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.ResultPathMatchFailure";

    private static final long serialVersionUID = 1L;

    public StatesResultPathMatchFailureError(String cause) {
        super(NAME, cause);
    }
}
