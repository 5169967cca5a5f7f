package dev.punctual.local.stepfunctions.executions;

/**
 * The Step Functions error codes this backend raises, named exactly as AWS names them in the
 * {@code __type} of an error response, so the SDK maps each to its typed exception.
 */
public enum ErrorCode {
    INVALID_NAME("InvalidName"),
    INVALID_ARN("InvalidArn"),
    INVALID_DEFINITION("InvalidDefinition"),
    INVALID_EXECUTION_INPUT("InvalidExecutionInput"),
    INVALID_TOKEN("InvalidToken"),
    EXECUTION_DOES_NOT_EXIST("ExecutionDoesNotExist"),
    EXECUTION_ALREADY_EXISTS("ExecutionAlreadyExists"),
    EXECUTION_LIMIT_EXCEEDED("ExecutionLimitExceeded"),
    STATE_MACHINE_DOES_NOT_EXIST("StateMachineDoesNotExist"),
    STATE_MACHINE_ALREADY_EXISTS("StateMachineAlreadyExists"),
    STATE_MACHINE_DELETING("StateMachineDeleting"),
    /** An action asked of a state machine of the type it does not serve (ListExecutions of an Express one). */
    STATE_MACHINE_TYPE_NOT_SUPPORTED("StateMachineTypeNotSupported"),
    MISSING_REQUIRED_PARAMETER("MissingRequiredParameter"),
    VALIDATION("ValidationException"),
    SERIALIZATION("SerializationException"),
    UNKNOWN_OPERATION("UnknownOperationException"),
    /** Past a StartExecution or StopExecution token bucket; the SDKs retry it as a throttling error. */
    THROTTLING("ThrottlingException"),
    INTERNAL("InternalServerError");

    private final String awsName;

    ErrorCode(String awsName) {
        this.awsName = awsName;
    }

    /** The name AWS puts in {@code __type}, e.g. {@code ExecutionAlreadyExists}. */
    public String awsName() {
        return awsName;
    }

    /**
     * The error name the optimized {@code states:startExecution} integration raises to Retry/Catch,
     * e.g. {@code StepFunctions.ExecutionAlreadyExistsException}: the SDK exception class name.
     */
    public String integrationErrorName() {
        return "StepFunctions." + (awsName.endsWith("Exception") ? awsName : awsName + "Exception");
    }
}
