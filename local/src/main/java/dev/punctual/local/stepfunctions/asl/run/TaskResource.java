package dev.punctual.local.stepfunctions.asl.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
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
     * Calls the resource with the state's effective parameters. Fails with an {@link AslError} carrying
     * the ASL error name and cause: a {@link TaskError} for the service's own errors (e.g.
     * {@code DynamoDB.ConditionalCheckFailedException}); any other exception becomes
     * {@code States.TaskFailed}.
     */
    CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context);
}
