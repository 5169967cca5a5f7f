package dev.punctual.local.stepfunctions.quotas;

/**
 * How many requests the runtime's throttles turned away or deferred.
 *
 * @param startExecution StartExecution calls refused with {@code ThrottlingException}
 * @param stopExecution StopExecution calls refused with {@code ThrottlingException}
 * @param stateTransitions state transitions deferred (Step Functions' {@code ExecutionThrottled} metric)
 */
public record ThrottleCounts(long startExecution, long stopExecution, long stateTransitions) {

    /** Nothing throttled. */
    public static final ThrottleCounts NONE = new ThrottleCounts(0, 0, 0);

    /** What was throttled since {@code earlier}. */
    public ThrottleCounts since(ThrottleCounts earlier) {
        return new ThrottleCounts(startExecution - earlier.startExecution, stopExecution - earlier.stopExecution,
                stateTransitions - earlier.stateTransitions);
    }
}
