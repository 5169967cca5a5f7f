package dev.punctual.local.stepfunctions.asl;

/** The error names the language predefines, and how Retry and Catch match them. */
public final class ErrorNames {

    public static final String ALL = "States.ALL";
    public static final String TASK_FAILED = "States.TaskFailed";
    public static final String TIMEOUT = "States.Timeout";
    public static final String HEARTBEAT_TIMEOUT = "States.HeartbeatTimeout";
    public static final String RUNTIME = "States.Runtime";
    public static final String DATA_LIMIT_EXCEEDED = "States.DataLimitExceeded";
    public static final String NO_CHOICE_MATCHED = "States.NoChoiceMatched";
    public static final String INTRINSIC_FAILURE = "States.IntrinsicFailure";
    public static final String RESULT_PATH_MATCH_FAILURE = "States.ResultPathMatchFailure";
    public static final String PARAMETER_PATH_FAILURE = "States.ParameterPathFailure";
    public static final String BRANCH_FAILED = "States.BranchFailed";
    public static final String PERMISSIONS = "States.Permissions";

    private ErrorNames() {
    }

    /**
     * Whether a Retrier's or Catcher's {@code ErrorEquals} entry matches an error. {@code States.Runtime}
     * is never matched ("isn't retriable, and will always cause the execution to fail");
     * {@code States.DataLimitExceeded} only by its own name; {@code States.ALL} matches everything else
     * and {@code States.TaskFailed} everything else but {@code States.Timeout}.
     */
    public static boolean matches(String errorEquals, String error) {
        if (RUNTIME.equals(error)) {
            return false;
        }
        if (errorEquals.equals(error)) {
            return true;
        }
        if (DATA_LIMIT_EXCEEDED.equals(error)) {
            return false;
        }
        if (ALL.equals(errorEquals)) {
            return true;
        }
        return TASK_FAILED.equals(errorEquals) && !TIMEOUT.equals(error);
    }
}
