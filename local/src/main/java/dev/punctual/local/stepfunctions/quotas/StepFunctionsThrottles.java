package dev.punctual.local.stepfunctions.quotas;

import dev.punctual.local.stepfunctions.asl.TransitionThrottle;
import dev.punctual.local.stepfunctions.executions.ErrorCode;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The runtime's Step Functions throttles, one set for the whole runtime (AWS throttles per account
 * and Region): the StartExecution and StopExecution buckets that the API checks before either action,
 * whichever transport the request came by, and the state-transition bucket the interpreter defers
 * transitions on. Counts what each throttled.
 */
public final class StepFunctionsThrottles {

    private final TokenBucket startExecution;
    private final TokenBucket stopExecution;
    private final TokenBucket stateTransitions;
    private final AtomicLong throttledStarts = new AtomicLong();
    private final AtomicLong throttledStops = new AtomicLong();
    private final AtomicLong throttledTransitions = new AtomicLong();
    private final TransitionThrottle transitionThrottle;

    private StepFunctionsThrottles(StepFunctionsQuotas quotas, Clock clock) {
        boolean on = quotas.ratesEnforced();
        startExecution = on ? bucket(quotas, StepFunctionsQuota.START_EXECUTION_BURST,
                StepFunctionsQuota.START_EXECUTION_RATE, clock) : null;
        stopExecution = on ? bucket(quotas, StepFunctionsQuota.STOP_EXECUTION_BURST,
                StepFunctionsQuota.STOP_EXECUTION_RATE, clock) : null;
        stateTransitions = on ? bucket(quotas, StepFunctionsQuota.STATE_TRANSITION_BURST,
                StepFunctionsQuota.STATE_TRANSITION_RATE, clock) : null;
        transitionThrottle = stateTransitions == null ? TransitionThrottle.NONE : this::admitTransition;
    }

    /** Throttles for {@code quotas}, reading time from {@code clock} (the engine timer's clock). */
    public static StepFunctionsThrottles of(StepFunctionsQuotas quotas, Clock clock) {
        return new StepFunctionsThrottles(quotas, clock);
    }

    /** Throttles that never throttle. */
    public static StepFunctionsThrottles none() {
        return new StepFunctionsThrottles(StepFunctionsQuotas.ratesUnlimited(), Clock.systemUTC());
    }

    private static TokenBucket bucket(StepFunctionsQuotas quotas, StepFunctionsQuota burst, StepFunctionsQuota rate,
            Clock clock) {
        return new TokenBucket(quotas.value(burst), quotas.value(rate), clock);
    }

    /**
     * Lets an API action through or refuses it as AWS does past its bucket.
     *
     * @param action the action name, e.g. {@code StartExecution}
     * @throws StepFunctionsException {@code ThrottlingException} when the action's bucket is empty
     */
    public void admitApiCall(String action) {
        if ("StartExecution".equals(action)) {
            admit(startExecution, throttledStarts, action);
        } else if ("StopExecution".equals(action)) {
            admit(stopExecution, throttledStops, action);
        }
    }

    private static void admit(TokenBucket bucket, AtomicLong throttled, String action) {
        if (bucket != null && !bucket.tryAcquire()) {
            throttled.incrementAndGet();
            throw new StepFunctionsException(ErrorCode.THROTTLING, "Rate exceeded: " + action
                    + " is throttled (the local runtime enforces Step Functions' quotas); retry with backoff");
        }
    }

    /** What the interpreter asks before each state transition. */
    public TransitionThrottle transitions() {
        return transitionThrottle;
    }

    private Instant admitTransition(Instant now) {
        Duration wait = stateTransitions.reserve();
        if (wait.isZero()) {
            return now;
        }
        throttledTransitions.incrementAndGet();
        return now.plus(wait);
    }

    /** What has been throttled so far. */
    public ThrottleCounts counts() {
        return new ThrottleCounts(throttledStarts.get(), throttledStops.get(), throttledTransitions.get());
    }
}
