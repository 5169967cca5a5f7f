package dev.punctual.local.runtime;

import dev.punctual.local.time.ManualTimer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Time a test moves on a runtime started on a {@link ManualTimer}: {@link #advanceTo} goes from one
 * instant the runtime owes work at to the next (a Wait's end, a retry, a runner's next second), and at
 * each one waits until the runtime has done all it will do there ({@link LocalRuntime#awaitSettled})
 * before moving on. So every expiry due on the way happens at its own instant of the runtime's time,
 * in order, however long the machine takes, and a year passes in as many steps as there are instants
 * with work, not in seconds or poll intervals.
 */
public final class SkippedTime {

    /** Wall time one instant may take to settle before the move fails: a stuck runtime, not a slow one. */
    public static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);

    private final LocalRuntime runtime;
    private final ManualTimer timer;
    private final Duration settleTimeout;

    private SkippedTime(LocalRuntime runtime, ManualTimer timer, Duration settleTimeout) {
        this.runtime = runtime;
        this.timer = timer;
        this.settleTimeout = settleTimeout;
    }

    /** Time on {@code runtime}, which must have been started on a {@link ManualTimer}. */
    public static SkippedTime of(LocalRuntime runtime) {
        return of(runtime, SETTLE_TIMEOUT);
    }

    /** {@link #of(LocalRuntime)} with {@code settleTimeout} of wall time allowed for each instant. */
    public static SkippedTime of(LocalRuntime runtime, Duration settleTimeout) {
        if (!(Objects.requireNonNull(runtime, "runtime").timer() instanceof ManualTimer manual)) {
            throw new IllegalArgumentException("Time can be skipped only on a runtime started on a ManualTimer"
                    + " (LocalRuntime.Options.withTimer(ManualTimer.startingAt(...)))");
        }
        return new SkippedTime(runtime, manual, settleTimeout);
    }

    /** The runtime's clock: hand it to the code under test so its TTLs are computed on the same time. */
    public Clock clock() {
        return timer.clock();
    }

    /** The runtime's instant now. */
    public Instant now() {
        return timer.clock().instant();
    }

    /** Waits, without moving time, until the runtime has done all it will do at the current instant. */
    public void settle() {
        runtime.awaitSettled(settleTimeout);
    }

    /** {@link #advanceTo} the instant {@code duration} from now. */
    public List<Instant> advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("Time cannot go back: " + duration);
        }
        return advanceTo(now().plus(duration));
    }

    /**
     * Moves time to {@code target}, stopping at every instant on the way that the runtime owes work
     * at and settling there; returns once the runtime is settled at {@code target}. Returns the
     * instants it stopped at before {@code target}.
     */
    public List<Instant> advanceTo(Instant target) {
        if (target.isBefore(now())) {
            throw new IllegalArgumentException("Time cannot go back from " + now() + " to " + target);
        }
        List<Instant> stops = new ArrayList<>();
        settle();
        while (now().isBefore(target)) {
            Instant reached = timer.skipToNextWork(target);
            settle();
            if (reached.isBefore(target)) {
                stops.add(reached);
            }
        }
        return stops;
    }
}
