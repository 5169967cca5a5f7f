package dev.punctual.local.stepfunctions.asl.errors;

/**
 * An error about the execution of the state that raised it (a path that selects nothing, a value of the
 * wrong type, no Choice rule that matches), whose cause Step Functions words with the state's name and
 * the event that entered it ({@link ExecutingState}). It is raised with what went wrong only; the run
 * that executes the state places it ({@link #raisedIn}) before anything records its cause.
 */
public abstract class StateExecutionError extends AslError {

    private static final long serialVersionUID = 1L;

    private final String detail;
    private final ExecutingState state;

    protected StateExecutionError(String name, String detail, ExecutingState state) {
        super(name, state == null ? detail : state.describe(detail));
        this.detail = detail;
        this.state = state;
    }

    /** What went wrong, without the state's name. */
    public String detail() {
        return detail;
    }

    /** Where it arose, or {@code null} while no run has placed it. */
    public ExecutingState state() {
        return state;
    }

    /** This error placed in {@code where}; one already placed (in a nested state, say) stays where it was. */
    @Override
    public final AslError raisedIn(ExecutingState where) {
        return state != null ? this : placedIn(where);
    }

    /** The same error, raised in {@code where}. */
    protected abstract StateExecutionError placedIn(ExecutingState where);
}
