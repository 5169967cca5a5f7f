package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * How a run ended.
 *
 * @param status {@code SUCCEEDED}, {@code FAILED} or {@code TIMED_OUT}
 * @param output the execution output when it succeeded, else {@code null}
 * @param error the error name when it did not succeed, else {@code null}
 * @param cause the cause when it did not succeed, else {@code null}
 */
public record ExecutionOutcome(Status status, JsonNode output, String error, String cause) {

    /** Terminal statuses a run reaches by itself; ABORTED comes only from StopExecution. */
    public enum Status { SUCCEEDED, FAILED, TIMED_OUT }

    public static ExecutionOutcome succeeded(JsonNode output) {
        return new ExecutionOutcome(Status.SUCCEEDED, output, null, null);
    }

    public static ExecutionOutcome failed(String error, String cause) {
        return new ExecutionOutcome(Status.FAILED, null, error, cause);
    }

    public static ExecutionOutcome timedOut(String cause) {
        return new ExecutionOutcome(Status.TIMED_OUT, null, "States.Timeout", cause);
    }
}
