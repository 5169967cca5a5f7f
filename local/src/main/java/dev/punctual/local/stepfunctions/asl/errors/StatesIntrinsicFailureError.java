package dev.punctual.local.stepfunctions.asl.errors;

/** {@code States.IntrinsicFailure}: an intrinsic function was called with arguments it cannot take. */
public final class StatesIntrinsicFailureError extends AslError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.IntrinsicFailure";

    private static final long serialVersionUID = 1L;

    public StatesIntrinsicFailureError(String cause) {
        super(NAME, cause);
    }
}
