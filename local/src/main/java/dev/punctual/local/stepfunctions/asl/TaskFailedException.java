package dev.punctual.local.stepfunctions.asl;

/** A task's failure, with the error name Retry and Catch match on and the cause they pass on. */
public final class TaskFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String error;

    public TaskFailedException(String error, String cause) {
        super(cause);
        this.error = error;
    }

    /** The ASL error name, e.g. {@code DynamoDB.ConditionalCheckFailedException}. */
    public String error() {
        return error;
    }

    /** The cause: the service's message, as Step Functions passes it. */
    public String cause() {
        return getMessage();
    }
}
