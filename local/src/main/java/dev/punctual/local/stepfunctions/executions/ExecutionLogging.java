package dev.punctual.local.stepfunctions.executions;

import java.util.Set;

/**
 * A state machine's {@code loggingConfiguration}: which of its executions' events go to its CloudWatch
 * Logs log group, and whether with their input and output. On this engine only Express executions are
 * logged (their log is the only record AWS keeps of them; a Standard execution keeps its history), to
 * the engine's {@link ExecutionLog}, which counts the bytes CloudWatch Logs would ingest.
 *
 * <p>The levels as the developer guide's "Log levels" defines them: {@code ALL} every event,
 * {@code ERROR} the events that report an error, {@code FATAL} only the execution's own failure,
 * {@code OFF} nothing.
 *
 * @param level {@code ALL}, {@code ERROR}, {@code FATAL} or {@code OFF}
 * @param includeExecutionData whether events carry their input, output and parameters
 */
public record ExecutionLogging(String level, boolean includeExecutionData) {

    private static final Set<String> LEVELS = Set.of("ALL", "ERROR", "FATAL", "OFF");
    private static final Set<String> FATAL_EVENTS = Set.of("ExecutionFailed", "ExecutionAborted", "ExecutionTimedOut");

    /** No logging: what CreateStateMachine sets when the request has no {@code loggingConfiguration}. */
    public static final ExecutionLogging OFF = new ExecutionLogging("OFF", false);

    public ExecutionLogging {
        if (level == null || !LEVELS.contains(level)) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value '" + level
                    + "' at 'loggingConfiguration.level' failed to satisfy constraint: Member must satisfy enum"
                    + " value set: [ALL, ERROR, FATAL, OFF]");
        }
    }

    /** Whether an event of {@code type} is logged at this level. */
    public boolean logs(String type) {
        return switch (level) {
            case "ALL" -> true;
            case "ERROR" -> FATAL_EVENTS.contains(type) || type.endsWith("Failed") || type.endsWith("TimedOut")
                    || type.endsWith("Aborted") || type.equals("FailStateEntered");
            case "FATAL" -> FATAL_EVENTS.contains(type);
            default -> false;
        };
    }
}
