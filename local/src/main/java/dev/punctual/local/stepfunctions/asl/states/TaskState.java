package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.errors.StatesTaskFailedError;
import dev.punctual.local.stepfunctions.asl.errors.StatesTimeoutError;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.time.Timer;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * {@code Task}: calls its resource with the effective input on the task executor, races it against
 * {@code TimeoutSeconds}/{@code TimeoutSecondsPath} on the timer ({@code States.Timeout}), and reports
 * the Task (or, for plain Lambda function ARNs, LambdaFunction) history events, {@code TaskSubmitted}
 * among them when a {@code .sync} resource reports the job it started. A state the
 * execution's test case mocks answers from it instead, with the same events, and calls nothing.
 */
public final class TaskState extends State {

    public static final StateType TYPE = new StateType("Task",
            StateType.common(StateFields.TRANSITION, StateFields.PATHS, Set.of("Parameters"),
                    StateFields.RESULT_AND_ERRORS),
            Set.of("Resource", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath"),
            TaskState::read);

    private static final System.Logger LOG = System.getLogger(TaskState.class.getName());

    /** Step Functions' default task time-out: the execution's own limit, one year. */
    static final long DEFAULT_TIMEOUT_SECONDS = 99_999_999L;

    private final String resource;
    private final Long timeoutSeconds;
    private final JsonPaths.Path timeoutSecondsPath;
    private final Long heartbeatSeconds;

    public TaskState(StateFields fields, String resource, Long timeoutSeconds, JsonPaths.Path timeoutSecondsPath,
            Long heartbeatSeconds) {
        super(fields);
        this.resource = resource;
        this.timeoutSeconds = timeoutSeconds;
        this.timeoutSecondsPath = timeoutSecondsPath;
        this.heartbeatSeconds = heartbeatSeconds;
    }

    @Override
    public String type() {
        return TYPE.name();
    }

    private static TaskState read(StateFields fields, DefinitionNode node) {
        String resource = node.requiredString("Resource", "A Task state needs a 'Resource' string");
        if (!node.parser().resourceSupported(resource)) {
            throw node.error("Resource", "The resource '" + resource + "' is not supported by this runtime: no"
                    + " registered task resource serves it");
        }
        node.exclusive("TimeoutSeconds", "TimeoutSecondsPath");
        node.exclusive("HeartbeatSeconds", "HeartbeatSecondsPath");
        Long timeout = node.optionalPositiveInteger("TimeoutSeconds");
        Long heartbeat = node.optionalPositiveInteger("HeartbeatSeconds");
        if (timeout != null && heartbeat != null && heartbeat >= timeout) {
            throw node.error("HeartbeatSeconds", "'HeartbeatSeconds' must be smaller than 'TimeoutSeconds'");
        }
        node.optionalPath("HeartbeatSecondsPath");
        return new TaskState(fields, resource, timeout, node.optionalPath("TimeoutSecondsPath"), heartbeat);
    }

    @Override
    protected boolean producesResult() {
        return true;
    }

    @Override
    protected void act(Attempt attempt) {
        Environment environment = attempt.environment();
        TaskResource target = environment.resources.apply(resource);
        long timeout = timeout(attempt);
        ResourceName names = ResourceName.of(resource);
        boolean lambdaFunction = names.lambdaFunction();
        String prefix = lambdaFunction ? "LambdaFunction" : "Task";

        ObjectNode scheduled = names.details(attempt.details());
        if (!lambdaFunction) {
            scheduled.put("region", names.region(environment.region));
            scheduled.put("parameters", Json.write(attempt.input()));
        } else {
            scheduled.put("input", Json.write(attempt.input()));
        }
        if (timeoutSeconds != null || timeoutSecondsPath != null) {
            scheduled.put("timeoutInSeconds", timeout);
        }
        if (heartbeatSeconds != null) {
            scheduled.put("heartbeatInSeconds", heartbeatSeconds);
        }
        attempt.emit(prefix + "Scheduled", scheduled);
        JsonNode parameters = attempt.input();
        ObjectNode started = lambdaFunction ? attempt.details() : names.details(attempt.details());
        // As in AWS, the task starts, and its TimeoutSeconds begins, when the call is made: a task
        // waiting for one of the runtime's task threads has not started yet and cannot time out.
        environment.taskExecutor.execute(() -> {
            if (attempt.isFinished() || attempt.stopped()) {
                return;
            }
            attempt.emit(prefix + "Started", started);
            Timer.Cancellable timer = attempt.schedule(attempt.now().plusSeconds(timeout), () -> {
                if (attempt.isFinished()) {
                    return;
                }
                String cause = "The task '" + name() + "' did not finish within its timeout of " + timeout + " seconds.";
                ObjectNode details = names.details(attempt.details());
                details.put("error", StatesTimeoutError.NAME);
                details.put("cause", cause);
                attempt.emit(prefix + "TimedOut", details);
                attempt.fail(new StatesTimeoutError(cause));
            });
            CompletionStage<JsonNode> call;
            try {
                Optional<TaskMocks.Answer> mocked = environment.mocks.nextInvocation(name());
                call = mocked.isPresent() ? answer(mocked.get())
                        : target.invoke(resource, parameters, environment.contextObject,
                                answer -> submitted(attempt, names, answer));
            } catch (Throwable e) {
                // Thrown rather than returned as a failed stage: still this attempt's end, or the
                // execution would wait on a call that never answers.
                finished(attempt, timer, names, prefix, null, e);
                return;
            }
            call.whenComplete((result, failure) -> finished(attempt, timer, names, prefix, result, failure));
        });
    }

    /** The resource started its job ({@code .sync}): a {@code TaskSubmitted} event with the start's answer. */
    private static void submitted(Attempt attempt, ResourceName names, JsonNode answer) {
        attempt.environment().trampoline.post(() -> {
            if (attempt.isFinished() || attempt.stopped()) {
                return;
            }
            ObjectNode details = names.details(attempt.details());
            details.put("output", Json.write(answer));
            details.putObject("outputDetails").put("truncated", false);
            attempt.emit("TaskSubmitted", details);
        });
    }

    /** A mocked invocation: what the test case says the service answered, without calling it. */
    private static CompletionStage<JsonNode> answer(TaskMocks.Answer answer) {
        if (answer instanceof TaskMocks.Thrown thrown) {
            return CompletableFuture.failedFuture(new TaskError(thrown.error(), thrown.cause()));
        }
        return CompletableFuture.completedFuture(((TaskMocks.Returned) answer).result().deepCopy());
    }

    private void finished(Attempt attempt, Timer.Cancellable timer, ResourceName names, String prefix,
            JsonNode result, Throwable failure) {
        attempt.environment().trampoline.post(() -> {
            if (attempt.isFinished() || attempt.stopped()) {
                return;
            }
            timer.cancel();
            if (failure == null) {
                ObjectNode details = names.details(attempt.details());
                details.put("output", Json.write(result == null ? Json.MAPPER.nullNode() : result));
                details.putObject("outputDetails").put("truncated", false);
                attempt.emit(prefix + "Succeeded", details);
                attempt.complete(result == null ? Json.MAPPER.nullNode() : result);
                return;
            }
            AslError error = asError(failure);
            ObjectNode details = names.details(attempt.details());
            details.put("error", error.name());
            details.put("cause", error.cause());
            attempt.emit(prefix + "Failed", details);
            attempt.fail(error);
        });
    }

    private AslError asError(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof AslError asl) {
            return asl;
        }
        if (cause instanceof Exception) {
            return new StatesTaskFailedError(cause.getClass().getName() + ": " + cause.getMessage());
        }
        // An Error (a class that will not load, memory run out) is this runtime failing, not the task's
        // service answering: AWS's States.Runtime, "an execution failed due to some exception that it
        // couldn't process", which no Retry or Catch handles. The cause names the class only, since a
        // message may quote the task's data; the stack goes to the runtime's log, once, here.
        LOG.log(System.Logger.Level.ERROR, "Task state '" + name() + "' failed inside the runtime", cause);
        return new StatesRuntimeError("The runtime failed while running the task's resource '"
                + resource + "': " + cause.getClass().getName() + "; its log has the stack trace");
    }

    private long timeout(Attempt attempt) {
        if (timeoutSeconds != null) {
            return timeoutSeconds;
        }
        if (timeoutSecondsPath == null) {
            return DEFAULT_TIMEOUT_SECONDS;
        }
        JsonNode value = timeoutSecondsPath.find(attempt.inputBeforeParameters(), attempt.context())
                .orElseThrow(() -> invalidPath(timeoutSecondsPath, attempt.inputBeforeParameters(), attempt.context()));
        if (!value.canConvertToExactIntegral() || value.decimalValue().signum() <= 0) {
            throw new StatesRuntimeError("The TimeoutSecondsPath '" + timeoutSecondsPath.text()
                    + "' did not resolve to a positive integer: " + Json.write(value));
        }
        return value.decimalValue().longValueExact();
    }

    /** How Step Functions names a resource in history events. */
    record ResourceName(String resourceType, String resource, String arnRegion, boolean lambdaFunction) {

        static ResourceName of(String arn) {
            String[] parts = arn.split(":", 6);
            if (parts.length >= 6 && parts[2].equals("lambda") && parts[5].startsWith("function:")) {
                return new ResourceName("lambda", arn, parts[3], true);
            }
            if (parts.length >= 6 && parts[2].equals("states") && parts[3].isEmpty()) {
                String service = parts[5];
                int last = service.lastIndexOf(':');
                if (last > 0) {
                    return new ResourceName(service.substring(0, last), service.substring(last + 1), "", false);
                }
            }
            return new ResourceName(parts.length > 2 ? parts[2] : "unknown", arn, parts.length > 3 ? parts[3] : "", false);
        }

        String region(String fallback) {
            return arnRegion.isEmpty() ? fallback : arnRegion;
        }

        ObjectNode details(ObjectNode details) {
            if (lambdaFunction) {
                details.put("resource", resource);
                return details;
            }
            details.put("resourceType", resourceType);
            details.put("resource", resource);
            return details;
        }
    }
}
