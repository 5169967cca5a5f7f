package dev.punctual.local.stepfunctions.executions;

import java.time.Duration;
import java.util.Locale;

/**
 * Step Functions' two workflow types, and what differs between them on this engine as in AWS
 * (developer guide, "Choosing workflow type"):
 * <ul>
 *   <li>{@link #STANDARD}: exactly once, journaled (a restart resumes it), named executions are
 *       idempotent, history kept, at most one year, billed per state transition, counted against the
 *       open-execution quota and published to EventBridge when their status changes;</li>
 *   <li>{@link #EXPRESS}: at least once, not journaled (a crash loses a running one, as an
 *       Express execution whose host fails is lost or run again in AWS), no name-based idempotency, no
 *       history (DescribeExecution, GetExecutionHistory, StopExecution and ListExecutions refuse them;
 *       only the state machine's log shows them), at most five minutes, billed per request and per
 *       GB-second, outside the open-execution quota, never published to EventBridge; their definitions
 *       may not use the {@code .sync} or {@code .waitForTaskToken} integration patterns.</li>
 * </ul>
 */
public enum WorkflowType {
    STANDARD(Duration.ofDays(365)),
    EXPRESS(Duration.ofMinutes(5));

    private final Duration maxDuration;

    WorkflowType(Duration maxDuration) {
        this.maxDuration = maxDuration;
    }

    /** How long an execution of this type may run before it times out with {@code States.Timeout}. */
    public Duration maxDuration() {
        return maxDuration;
    }

    /**
     * The type CreateStateMachine's {@code type} names; {@code null} is {@link #STANDARD}, as in AWS.
     *
     * @throws StepFunctionsException {@code ValidationException} for anything else
     */
    public static WorkflowType of(String type) {
        if (type == null) {
            return STANDARD;
        }
        for (WorkflowType known : values()) {
            if (known.name().equals(type)) {
                return known;
            }
        }
        throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value '" + type
                + "' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, EXPRESS]");
    }

    /** The label in messages: {@code Standard}, {@code Express}. */
    String label() {
        return name().charAt(0) + name().substring(1).toLowerCase(Locale.ROOT);
    }
}
