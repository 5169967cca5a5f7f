package dev.punctual.local.stepfunctions.executions;

/** A request Step Functions refuses, with the AWS error code the API reports it under. */
public final class StepFunctionsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public StepFunctionsException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
