package dev.punctual.local.events;

import java.util.SplittableRandom;

/**
 * Fault injection for {@code PutEvents}: each entry is refused with {@code InternalFailure} (as
 * EventBridge refuses an entry in a partial failure) with a given probability. Off unless asked for.
 */
public final class PutEventsFaults {

    /** The per-entry error code EventBridge gives for its own transient failures. */
    public static final String INTERNAL_FAILURE = "InternalFailure";

    private double fraction;
    private long refused;
    private SplittableRandom random = new SplittableRandom(0);

    /** Refuses each entry from now on with probability {@code probability}, drawn from {@code seed}. */
    public synchronized void failFraction(double probability, long seed) {
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("a fault fraction is between 0 and 1, got " + probability);
        }
        this.fraction = probability;
        this.random = new SplittableRandom(seed);
    }

    /** Whether the next entry is refused. */
    synchronized boolean refuseNext() {
        boolean refuse = fraction > 0 && random.nextDouble() < fraction;
        if (refuse) {
            refused++;
        }
        return refuse;
    }

    /** How many entries the fault has refused so far. */
    public synchronized long refused() {
        return refused;
    }
}
