package dev.punctual.local.stepfunctions.asl.run;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.StatesTimeoutError;

/**
 * How a run ended.
 *
 * @param status {@code SUCCEEDED}, {@code FAILED} or {@code TIMED_OUT}
 * @param output the execution output when it succeeded, else {@code null}
 * @param error the error name when it did not succeed, else {@code null}
 * @param cause the cause when it did not succeed, else {@code null}
 */
public record RunOutcome(Status status, JsonNode output, String error, String cause) {

    /** Terminal statuses a run reaches by itself; ABORTED comes only from StopExecution. */
    public enum Status { SUCCEEDED, FAILED, TIMED_OUT }

    public static RunOutcome succeeded(JsonNode output) {
        return new RunOutcome(Status.SUCCEEDED, output, null, null);
    }

    public static RunOutcome failed(String error, String cause) {
        return new RunOutcome(Status.FAILED, null, error, cause);
    }

    public static RunOutcome timedOut(String cause) {
        return new RunOutcome(Status.TIMED_OUT, null, StatesTimeoutError.NAME, cause);
    }
}
