package dev.punctual.local.stepfunctions.asl.errors;

/** {@code States.TaskFailed}: a Task's resource failed with an exception that names no error of its own. */
public final class StatesTaskFailedError extends AslError {

    /** The error name Retry and Catch match on. */
    public static final String NAME = "States.TaskFailed";

    private static final long serialVersionUID = 1L;

    public StatesTaskFailedError(String cause) {
        super(NAME, cause);
    }
}
