package dev.punctual.local.faults;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.time.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Lambda invocation faults for the local runtime's in-process functions, as their callers meet them:
 * <ul>
 *   <li>a state machine's Task ({@link #around(TaskResource)}): the task fails with the error name Step
 *       Functions gives ({@code Lambda.ServiceException}, ..., {@code Lambda.Unknown} for a function that
 *       timed out), and the state's Retry policy decides what happens next;</li>
 *   <li>an EventBridge rule's target ({@link #around(String, Function)}): the delivery fails, and the
 *       rule retries it as Lambda retries an asynchronous invocation.</li>
 * </ul>
 * A service error or throttling fails before the function runs. A timeout lets the function run (its
 * deletes and starts happen) and loses its result: the failure comes when the function's timeout has
 * passed since the invocation began, on the runtime's timer, so a retry repeats work already done.
 */
public final class FaultyLambda {

    private static final String TIMEOUT = "Lambda.Unknown";

    private final Faults faults;
    private final Timer timer;
    private final Duration functionTimeout;

    /** @param functionTimeout the function's configured timeout: when a timed-out invocation reports its failure */
    public FaultyLambda(Faults faults, Timer timer, Duration functionTimeout) {
        this.faults = Objects.requireNonNull(faults, "faults");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.functionTimeout = Objects.requireNonNull(functionTimeout, "functionTimeout");
    }

    /** {@code resource}'s invocations, failing as the faults say; the call site is {@code caller.Invoke}. */
    public TaskResource around(TaskResource resource, String caller) {
        return new TaskResource() {
            @Override
            public boolean supports(String resourceArn) {
                return resource.supports(resourceArn);
            }

            @Override
            public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
                Optional<String> fault = faults.next(caller + ".Invoke");
                if (fault.isEmpty()) {
                    return resource.invoke(resourceArn, parameters, context);
                }
                String error = fault.get();
                if (!TIMEOUT.equals(error)) {
                    return CompletableFuture.failedFuture(new TaskError(error, cause(error)));
                }
                Instant began = timer.clock().instant();
                CompletableFuture<JsonNode> timedOut = new CompletableFuture<>();
                resource.invoke(resourceArn, parameters, context).whenComplete((result, failure) -> timer.schedule(
                        began.plus(functionTimeout), () -> timedOut.completeExceptionally(new TaskError(error, cause(error)))));
                return timedOut;
            }
        };
    }

    /**
     * {@code target}, failing as the faults say: a service error or throttling throws before it runs,
     * a timeout after it ran. The call site is {@code caller.Invoke}.
     */
    public <T, R> Function<T, R> around(String caller, Function<T, R> target) {
        return input -> {
            Optional<String> fault = faults.next(caller + ".Invoke");
            if (fault.isEmpty()) {
                return target.apply(input);
            }
            if (TIMEOUT.equals(fault.get())) {
                target.apply(input);
            }
            throw new IllegalStateException(fault.get() + ": " + cause(fault.get()));
        };
    }

    private String cause(String error) {
        return switch (error) {
            case TIMEOUT -> "{\"errorMessage\":\"Task timed out after " + functionTimeout.toSeconds() + ".00 seconds\"}";
            case "Lambda.TooManyRequestsException" -> "Rate Exceeded. (Service: Lambda, Status Code: 429, Request ID: injected-fault)";
            default -> "Lambda returned an error: injected fault (Service: Lambda, Status Code: 500, Request ID: injected-fault)";
        };
    }
}
