package dev.punctual.tests.support;

import dev.punctual.local.time.ManualTimer;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * A {@link ManualTimer} that keeps pace with the wall clock until the test moves it ahead. For a
 * runtime whose behaviour weighs its own clock against real time that nothing injects (the AWS SDK's
 * own retry pauses, DynamoDB Local's work): the runtime runs at the real pace while both count, and
 * the test then skips a wait that only the runtime's clock governs, such as the engine's Wait until
 * a TTL. Only the test's thread moves it; due actions run on that thread, as {@link ManualTimer} runs them.
 */
public final class PacedTimer {

    private final ManualTimer timer;
    /** How far the test has moved the timer ahead of the wall clock. */
    private Duration ahead = Duration.ZERO;

    private PacedTimer(ManualTimer timer) {
        this.timer = timer;
    }

    /** A timer at the wall clock's instant now. */
    public static PacedTimer startingNow() {
        return new PacedTimer(ManualTimer.startingAt(Instant.now()));
    }

    /** The timer to hand to the runtime ({@code LocalRuntime.Options.withTimer}). */
    public ManualTimer timer() {
        return timer;
    }

    /** The runtime's instant now. */
    public Instant now() {
        return timer.clock().instant();
    }

    /** Brings the timer up to the wall clock plus the skips so far, running whatever fell due. */
    public void keepPace() {
        timer.advanceTo(Instant.now().plus(ahead));
    }

    /** Waits until {@code condition} holds, bringing the timer up to pace before each check. */
    public void await(String description, Duration timeout, BooleanSupplier condition) {
        Await.until(description, timeout, () -> {
            keepPace();
            return condition.getAsBoolean();
        });
    }

    /**
     * Moves the timer straight to {@code target}, running at their own instants the actions due on the
     * way, and keeps pace from there on.
     */
    public void skipTo(Instant target) {
        keepPace();
        Instant wall = Instant.now();
        timer.advanceTo(target);
        Duration skipped = Duration.between(wall, target);
        if (skipped.compareTo(ahead) > 0) {
            ahead = skipped;
        }
    }
}
