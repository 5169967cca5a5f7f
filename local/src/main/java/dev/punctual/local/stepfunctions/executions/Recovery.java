package dev.punctual.local.stepfunctions.executions;

import java.time.Duration;

/**
 * What the engine's start found in its data directory ({@link StepFunctionsEngine#recovery()}).
 *
 * @param recordsReplayed journal and snapshot records applied
 * @param executionsResumed running executions resumed from their checkpoints
 * @param duration how long replay and resume took
 */
public record Recovery(long recordsReplayed, int executionsResumed, Duration duration) {

    /** What an engine without a data directory, or with an empty one, recovered. */
    public static final Recovery NONE = new Recovery(0, 0, Duration.ZERO);
}
