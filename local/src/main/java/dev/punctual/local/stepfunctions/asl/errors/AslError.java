package dev.punctual.local.stepfunctions.asl.errors;

/**
 * An error a state raises while it runs, carrying the name Retry and Catch match on (e.g.
 * {@code States.Timeout}, {@code DynamoDB.ConditionalCheckFailedException}) and its cause. Each kind of
 * error is its own subclass: the language's predefined {@code States.*} errors, a Fail state's
 * {@link FailStateError} and a task resource's {@link TaskError}.
 *
 * <p>Whether an error can be retried or caught, and which {@code ErrorEquals} entries match it, follows
 * from its name alone, as in Step Functions: a Fail state that names {@code States.Runtime} raises an
 * error no Retrier or Catcher handles, as the engine's own {@code States.Runtime} is.
 */
public abstract class AslError extends RuntimeException {

    /** The {@code ErrorEquals} wildcard; {@link #matchedBy} says what it matches. */
    public static final String ALL = "States.ALL";

    private static final long serialVersionUID = 1L;

    private final String name;

    protected AslError(String name, String cause) {
        super(cause);
        this.name = name;
    }

    /** The error name, e.g. {@code States.Runtime}. */
    public String name() {
        return name;
    }

    /** The cause, as Step Functions passes it on ({@code Cause} in a Catcher's output). */
    public String cause() {
        return getMessage();
    }

    /**
     * Whether a Retrier may retry it: every error but {@code States.Runtime}, which "isn't retriable, and
     * will always cause the execution to fail".
     */
    public boolean retryable() {
        return !StatesRuntimeError.NAME.equals(name);
    }

    /**
     * Whether a Catcher may catch it: the same errors as {@link #retryable()} ("a retry or catch on
     * {@code States.ALL} won't catch {@code States.Runtime} errors", nor one naming it).
     */
    public boolean catchable() {
        return retryable();
    }

    /**
     * Whether a Retrier's or Catcher's {@code ErrorEquals} entry names this error: its own name;
     * {@link #ALL} any error but the terminal {@code States.DataLimitExceeded}; {@code States.TaskFailed}
     * any of those but {@code States.Timeout}. Whether it may be retried or caught at all is
     * {@link #retryable()}'s and {@link #catchable()}'s to say.
     */
    public boolean matchedBy(String errorEquals) {
        if (errorEquals.equals(name)) {
            return true;
        }
        if (StatesDataLimitExceededError.NAME.equals(name)) {
            return false;
        }
        if (ALL.equals(errorEquals)) {
            return true;
        }
        return StatesTaskFailedError.NAME.equals(errorEquals) && !StatesTimeoutError.NAME.equals(name);
    }

    /**
     * This error as raised while {@code state} executed. An error about the state's own execution
     * ({@link StateExecutionError}) comes back with a cause that names the state and the event that entered
     * it, as Step Functions words it; any other error (a Fail state's, a task's) comes back as it is.
     */
    public AslError raisedIn(ExecutingState state) {
        return this;
    }

    @Override
    public String toString() {
        return name + ": " + getMessage();
    }
}
