package dev.punctual.local.stepfunctions.asl.run;

import java.time.Instant;

/**
 * Admits state transitions: the interpreter asks before every state it enters and every retry it
 * makes, and a transition the throttle defers runs at the instant it names, on the interpreter's
 * timer. Step Functions throttles Standard workflows' transitions this way: the execution goes on,
 * later; nothing fails.
 */
@FunctionalInterface
public interface TransitionThrottle {

    /** Admits every transition at once. */
    TransitionThrottle NONE = now -> now;

    /** When the transition asked for at {@code now} may run: {@code now}, or a later instant. */
    Instant admit(Instant now);
}
