package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.AslError;
import dev.punctual.local.stepfunctions.asl.ErrorNames;
import dev.punctual.local.stepfunctions.asl.TaskFailedException;
import dev.punctual.local.stepfunctions.asl.TaskResource;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import dev.punctual.local.time.Timer;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * {@code Task}: calls its resource with the effective input on the task executor, races it against
 * {@code TimeoutSeconds}/{@code TimeoutSecondsPath} on the timer ({@code States.Timeout}), and reports
 * the Task (or, for plain Lambda function ARNs, LambdaFunction) history events.
 */
public final class TaskState extends State {

    public static final StateType TYPE = new StateType("Task",
            StateType.common(StateFields.TRANSITION, StateFields.PATHS, Set.of("Parameters"),
                    StateFields.RESULT_AND_ERRORS),
            Set.of("Resource", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath"),
            TaskState::read);

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

    public String resource() {
        return resource;
    }

    @Override
    public String type() {
        return TYPE.name();
    }

    private static TaskState read(StateFields fields, DefinitionNode node) {
        String resource = node.requiredString("Resource", "A Task state needs a 'Resource' string");
        if (!node.context().resourceSupported(resource)) {
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
    protected void act(Activation activation) {
        RunContext run = activation.run();
        TaskResource target = run.resources.apply(resource);
        long timeout = timeout(activation);
        ResourceName names = ResourceName.of(resource);
        boolean lambdaFunction = names.lambdaFunction();
        String prefix = lambdaFunction ? "LambdaFunction" : "Task";

        ObjectNode scheduled = names.details(activation.details());
        if (!lambdaFunction) {
            scheduled.put("region", names.region(run.region));
            scheduled.put("parameters", Json.write(activation.input()));
        } else {
            scheduled.put("input", Json.write(activation.input()));
        }
        if (timeoutSeconds != null || timeoutSecondsPath != null) {
            scheduled.put("timeoutInSeconds", timeout);
        }
        if (heartbeatSeconds != null) {
            scheduled.put("heartbeatInSeconds", heartbeatSeconds);
        }
        activation.emit(prefix + "Scheduled", scheduled);
        JsonNode parameters = activation.input();
        ObjectNode started = lambdaFunction ? activation.details() : names.details(activation.details());
        // As in AWS, the task starts, and its TimeoutSeconds begins, when the call is made: a task
        // waiting for one of the runtime's task threads has not started yet and cannot time out.
        run.taskExecutor.execute(() -> {
            if (activation.isFinished() || activation.stopped()) {
                return;
            }
            activation.emit(prefix + "Started", started);
            Timer.Cancellable timer = activation.schedule(activation.now().plusSeconds(timeout), () -> {
                if (activation.isFinished()) {
                    return;
                }
                String cause = "The task '" + name() + "' did not finish within its timeout of " + timeout + " seconds.";
                ObjectNode details = names.details(activation.details());
                details.put("error", ErrorNames.TIMEOUT);
                details.put("cause", cause);
                activation.emit(prefix + "TimedOut", details);
                activation.fail(new AslError(ErrorNames.TIMEOUT, cause));
            });
            CompletionStage<JsonNode> call;
            try {
                call = target.invoke(resource, parameters, run.execution);
            } catch (RuntimeException e) {
                finished(activation, timer, names, prefix, null, e);
                return;
            }
            call.whenComplete((result, failure) -> finished(activation, timer, names, prefix, result, failure));
        });
    }

    private void finished(Activation activation, Timer.Cancellable timer, ResourceName names, String prefix,
            JsonNode result, Throwable failure) {
        activation.run().trampoline.post(() -> {
            if (activation.isFinished() || activation.stopped()) {
                return;
            }
            timer.cancel();
            if (failure == null) {
                ObjectNode details = names.details(activation.details());
                details.put("output", Json.write(result == null ? Json.MAPPER.nullNode() : result));
                details.putObject("outputDetails").put("truncated", false);
                activation.emit(prefix + "Succeeded", details);
                activation.complete(result == null ? Json.MAPPER.nullNode() : result);
                return;
            }
            AslError error = asError(failure);
            ObjectNode details = names.details(activation.details());
            details.put("error", error.error());
            details.put("cause", error.cause());
            activation.emit(prefix + "Failed", details);
            activation.fail(error);
        });
    }

    private static AslError asError(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof TaskFailedException task) {
            return new AslError(task.error(), task.cause());
        }
        if (cause instanceof AslError asl) {
            return asl;
        }
        return new AslError(ErrorNames.TASK_FAILED, cause.getClass().getName() + ": " + cause.getMessage());
    }

    private long timeout(Activation activation) {
        if (timeoutSeconds != null) {
            return timeoutSeconds;
        }
        if (timeoutSecondsPath == null) {
            return DEFAULT_TIMEOUT_SECONDS;
        }
        JsonNode value = timeoutSecondsPath.find(activation.inputBeforeParameters(), activation.context()).orElse(null);
        if (value == null || !value.canConvertToExactIntegral() || value.decimalValue().signum() <= 0) {
            throw new AslError(ErrorNames.RUNTIME, "An error occurred while executing the state '" + name()
                    + "'. The TimeoutSecondsPath '" + timeoutSecondsPath.text()
                    + "' did not resolve to a positive integer: " + (value == null ? "no value" : Json.write(value)));
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
