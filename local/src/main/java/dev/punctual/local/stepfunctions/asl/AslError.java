package dev.punctual.local.stepfunctions.asl;

/**
 * An error raised while running a state, with the name Retry and Catch match on
 * (e.g. {@code States.Runtime}, {@code DynamoDB.ConditionalCheckFailedException}) and its cause.
 */
public final class AslError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String error;

    public AslError(String error, String cause) {
        super(cause);
        this.error = error;
    }

    public String error() {
        return error;
    }

    public String cause() {
        return getMessage();
    }

    @Override
    public String toString() {
        return error + ": " + getMessage();
    }
}
