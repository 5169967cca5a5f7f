package dev.punctual.local.stepfunctions.asl.errors;

/**
 * {@code States.NoChoiceMatched}: no rule of a Choice state matched and it has no {@code Default}. The run
 * names the Choice state in its cause ({@link StateExecutionError}).
 */
public final class StatesNoChoiceMatchedError extends StateExecutionError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.NoChoiceMatched";

    private static final long serialVersionUID = 1L;

    public StatesNoChoiceMatchedError(String detail) {
        this(detail, null);
    }

    private StatesNoChoiceMatchedError(String detail, ExecutingState state) {
        super(NAME, detail, state);
    }

    @Override
    protected StateExecutionError placedIn(ExecutingState where) {
        return new StatesNoChoiceMatchedError(detail(), where);
    }
}
