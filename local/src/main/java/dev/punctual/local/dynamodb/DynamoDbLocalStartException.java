package dev.punctual.local.dynamodb;

/** DynamoDB Local could not be started; the message says why and what to change. */
public final class DynamoDbLocalStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public DynamoDbLocalStartException(String message) {
        super(message);
    }

    public DynamoDbLocalStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
