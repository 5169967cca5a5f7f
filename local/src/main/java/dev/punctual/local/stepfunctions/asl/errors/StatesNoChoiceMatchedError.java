package dev.punctual.local.stepfunctions.asl.errors;

/** {@code States.NoChoiceMatched}: no rule of a Choice state matched and it has no {@code Default}. */
public final class StatesNoChoiceMatchedError extends AslError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.NoChoiceMatched";

    private static final long serialVersionUID = 1L;

    public StatesNoChoiceMatchedError(String cause) {
        super(NAME, cause);
    }
}
