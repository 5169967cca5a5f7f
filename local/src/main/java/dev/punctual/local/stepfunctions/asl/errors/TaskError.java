package dev.punctual.local.stepfunctions.asl.errors;

/**
 * A task resource's failure, named as the service integration names it (e.g.
 * {@code DynamoDB.ConditionalCheckFailedException}, {@code StepFunctions.ExecutionAlreadyExistsException},
 * a Lambda function's error type), with the service's message as its cause.
 */
public final class TaskError extends AslError {

    private static final long serialVersionUID = 1L;

    public TaskError(String name, String cause) {
        super(name, cause);
    }
}
