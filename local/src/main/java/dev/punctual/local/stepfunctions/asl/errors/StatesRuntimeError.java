package dev.punctual.local.stepfunctions.asl.errors;

/**
 * {@code States.Runtime}: the execution hit something it cannot go on from (a path that selects
 * nothing, a value of the wrong type); never retried or caught. Raised with what went wrong; the run
 * names the state in its cause ({@link StateExecutionError}).
 */
public final class StatesRuntimeError extends StateExecutionError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.Runtime";

    private static final long serialVersionUID = 1L;

    /** An error about the state being executed; {@code detail} says what went wrong. */
    public StatesRuntimeError(String detail) {
        this(detail, null);
    }

    private StatesRuntimeError(String detail, ExecutingState state) {
        super(NAME, detail, state);
    }

    @Override
    protected StateExecutionError placedIn(ExecutingState where) {
        return new StatesRuntimeError(detail(), where);
    }
}
