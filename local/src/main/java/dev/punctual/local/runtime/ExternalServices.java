package dev.punctual.local.runtime;

import java.net.URI;
import java.util.Objects;

/**
 * AWS-compatible services that Punctual attaches to instead of starting its own (LocalStack, moto, or
 * anything else that speaks the AWS APIs): {@link AttachedRuntime}.
 *
 * @param dynamoDb the endpoint of DynamoDB and of its stream (DynamoDB Streams answers on the same
 *     endpoint in LocalStack and moto, as it does for DynamoDB Local)
 * @param stepFunctions the endpoint of Step Functions, which must run the expire-item machine's Wait and
 *     its DynamoDB deletes itself, against the DynamoDB behind {@code dynamoDb}
 */
public record ExternalServices(URI dynamoDb, URI stepFunctions) {

    public ExternalServices {
        Objects.requireNonNull(dynamoDb, "dynamoDb");
        Objects.requireNonNull(stepFunctions, "stepFunctions");
    }
}
