package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletionStage;

/**
 * Serves Task states whose {@code Resource} it supports, e.g.
 * {@code arn:aws:states:::dynamodb:deleteItem}. Registered with the interpreter; definitions naming a
 * resource no registered one supports are refused at parse time.
 */
public interface TaskResource {

    /** Whether this serves {@code resourceArn} (any partition). */
    boolean supports(String resourceArn);

    /**
     * Calls the resource with the state's effective parameters. Fails with a {@link TaskFailedException}
     * carrying the ASL error name (e.g. {@code DynamoDB.ConditionalCheckFailedException}) and cause.
     */
    CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ExecutionContext context);
}
