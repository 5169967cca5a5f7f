package dev.punctual.local.stepfunctions.asl.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

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

    /**
     * Calls the resource as {@link #invoke(String, JsonNode, ContextObject)} does; a resource that starts a
     * job and then waits for it (the Run a Job pattern, {@code .sync}) also calls {@code submitted}, once,
     * with the service's answer to the start, which the Task records as its {@code TaskSubmitted} event.
     * By default the resource reports no such answer.
     */
    default CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context,
            Consumer<JsonNode> submitted) {
        return invoke(resourceArn, parameters, context);
    }
}
