package dev.punctual.local.stepfunctions.quotas;

import dev.punctual.local.stepfunctions.asl.run.TransitionThrottle;
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
public final class Throttles {

    private final TokenBucket startExecution;
    private final TokenBucket stopExecution;
    private final TokenBucket stateTransitions;
    private final AtomicLong throttledStarts = new AtomicLong();
    private final AtomicLong throttledStops = new AtomicLong();
    private final AtomicLong throttledTransitions = new AtomicLong();
    private final TransitionThrottle transitionThrottle;

    private Throttles(QuotaSettings quotas, Clock clock) {
        boolean on = quotas.ratesEnforced();
        startExecution = on ? bucket(quotas, Quota.START_EXECUTION_BURST,
                Quota.START_EXECUTION_RATE, clock) : null;
        stopExecution = on ? bucket(quotas, Quota.STOP_EXECUTION_BURST,
                Quota.STOP_EXECUTION_RATE, clock) : null;
        stateTransitions = on ? bucket(quotas, Quota.STATE_TRANSITION_BURST,
                Quota.STATE_TRANSITION_RATE, clock) : null;
        transitionThrottle = stateTransitions == null ? TransitionThrottle.NONE : this::admitTransition;
    }

    /** Throttles for {@code quotas}, reading time from {@code clock} (the engine timer's clock). */
    public static Throttles of(QuotaSettings quotas, Clock clock) {
        return new Throttles(quotas, clock);
    }

    /** Throttles that never throttle. */
    public static Throttles none() {
        return new Throttles(QuotaSettings.ratesUnlimited(), Clock.systemUTC());
    }

    private static TokenBucket bucket(QuotaSettings quotas, Quota burst, Quota rate,
            Clock clock) {
        return new TokenBucket(quotas.value(burst), quotas.value(rate), clock);
    }

    /**
     * Takes a token for an API action from its bucket, if the action has one. {@code false} means the
     * action is throttled: the API refuses it with {@code ThrottlingException}, as AWS does past its bucket.
     *
     * @param action the action name, e.g. {@code StartExecution}
     */
    public boolean admitApiCall(String action) {
        if ("StartExecution".equals(action)) {
            return admit(startExecution, throttledStarts);
        }
        if ("StopExecution".equals(action)) {
            return admit(stopExecution, throttledStops);
        }
        return true;
    }

    private static boolean admit(TokenBucket bucket, AtomicLong throttled) {
        if (bucket != null && !bucket.tryAcquire()) {
            throttled.incrementAndGet();
            return false;
        }
        return true;
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
