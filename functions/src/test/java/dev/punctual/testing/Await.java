package dev.punctual.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Bounded polling for tests that wait on something real time brings about (a real stream, a real
 * server, another thread): a condition is checked every few milliseconds until it holds or the
 * timeout fails the test. The one such helper, shared through this module's test jar; arguments come
 * in the order description, timeout, condition.
 */
public final class Await {

    /** How often a condition is checked: well below the second-granular TTLs under test. */
    public static final Duration POLL = Duration.ofMillis(20);

    private Await() {
    }

    /** Waits until {@code condition} holds; fails with {@code description} after {@code timeout}. */
    public static void until(String description, Duration timeout, BooleanSupplier condition) {
        until(() -> description, timeout, condition);
    }

    /**
     * As {@link #until(String, Duration, BooleanSupplier)}, with the description built when the wait
     * fails, so it can say what was seen instead.
     */
    public static void until(Supplier<String> description, Duration timeout, BooleanSupplier condition) {
        value(description, timeout, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }

    /**
     * As {@link #until(Supplier, Duration, BooleanSupplier)}, checking every {@code poll}: for a condition
     * whose every check costs the server under test real work (listing hundreds of executions on moto,
     * a single Python process that also runs them).
     */
    public static void until(Supplier<String> description, Duration timeout, Duration poll, BooleanSupplier condition) {
        value(description, timeout, poll, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }

    /** Waits until {@code probe} returns a value and returns it; fails after {@code timeout}. */
    public static <T> T value(String description, Duration timeout, Supplier<Optional<T>> probe) {
        return value(() -> description, timeout, probe);
    }

    private static <T> T value(Supplier<String> description, Duration timeout, Supplier<Optional<T>> probe) {
        return value(description, timeout, POLL, probe);
    }

    private static <T> T value(Supplier<String> description, Duration timeout, Duration poll, Supplier<Optional<T>> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + description.get());
            }
            pause(poll);
        }
    }

    /**
     * How long a wait on progress may go on while its progress keeps moving: a guard against a hang that
     * keeps counting (a retry loop that never succeeds), not a budget for the work.
     */
    public static final Duration HANG_GUARD = Duration.ofMinutes(10);

    /**
     * Waits until {@code condition} holds, for as long as the system under test keeps working: fails only when
     * {@code progress} (a count of its work done so far) has not moved for {@code stall} while the condition
     * does not hold. For work whose pace is the machine's, where a bound on the whole wait would fail a slow
     * run that is still making progress.
     */
    public static void untilProgressing(Supplier<String> description, Duration stall, LongSupplier progress, BooleanSupplier condition) {
        valueWhileProgressing(description, Instant.MIN, stall, POLL, progress,
                () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }

    /** As {@link #untilProgressing(Supplier, Duration, LongSupplier, BooleanSupplier)}, with a fixed description. */
    public static void untilProgressing(String description, Duration stall, LongSupplier progress, BooleanSupplier condition) {
        untilProgressing(() -> description, stall, progress, condition);
    }

    /**
     * As {@link #untilProgressing(Supplier, Duration, LongSupplier, BooleanSupplier)} for work that is due at
     * {@code due} on the wall clock (an expiry at its TTL): the system may rightly rest until then, so a stall
     * is counted from {@code due} on, or from now if that is later.
     */
    public static void untilProgressingAfter(String description, Instant due, Duration stall, LongSupplier progress,
            BooleanSupplier condition) {
        untilProgressingAfter(() -> description, due, stall, POLL, progress, condition);
    }

    /**
     * As {@link #untilProgressingAfter(String, Instant, Duration, LongSupplier, BooleanSupplier)}, with the
     * description built when the wait fails, checking every {@code poll}: for a server whose every check
     * costs it real work (moto, one Python process that also runs what it is asked about).
     */
    public static void untilProgressingAfter(Supplier<String> description, Instant due, Duration stall, Duration poll,
            LongSupplier progress, BooleanSupplier condition) {
        valueWhileProgressing(description, due, stall, poll, progress,
                () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }

    /**
     * Waits until {@code probe} returns a value and returns it, for as long as {@code progress} keeps moving
     * (see {@link #untilProgressing(Supplier, Duration, LongSupplier, BooleanSupplier)}).
     */
    public static <T> T valueWhileProgressing(String description, Duration stall, LongSupplier progress, Supplier<Optional<T>> probe) {
        return valueWhileProgressing(() -> description, Instant.MIN, stall, POLL, progress, probe);
    }

    private static <T> T valueWhileProgressing(Supplier<String> description, Instant due, Duration stall, Duration poll,
            LongSupplier progress, Supplier<Optional<T>> probe) {
        long started = System.nanoTime();
        long last = progress.getAsLong();
        long lastMoved = System.nanoTime();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            long now = progress.getAsLong();
            if (now != last || Instant.now().isBefore(due)) {
                last = now;
                lastMoved = System.nanoTime();
            } else if (System.nanoTime() - lastMoved > stall.toNanos()) {
                throw new AssertionError("nothing moved for " + stall.toMillis() + " ms (progress at " + now + ") waiting for "
                        + description.get());
            }
            if (System.nanoTime() - started > HANG_GUARD.toNanos()) {
                throw new AssertionError("still moving after the hang guard of " + HANG_GUARD.toMinutes() + " min (progress at "
                        + now + ") waiting for " + description.get());
            }
            pause(poll);
        }
    }

    /**
     * Waits until {@code remaining} reaches zero, for as long as it keeps falling: fails only when it has not
     * fallen for {@code stall}. For work whose pace is the machine's (a backlog of deletes on a loaded box),
     * where a bound on the whole wait would fail a slow run that is still making progress.
     */
    public static void whileProgressing(String description, Duration stall, LongSupplier remaining) {
        long least = Long.MAX_VALUE;
        long lastProgress = System.nanoTime();
        while (true) {
            long now = remaining.getAsLong();
            if (now <= 0) {
                return;
            }
            if (now < least) {
                least = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > stall.toNanos()) {
                throw new AssertionError(description + ": stuck at " + now + " remaining for " + stall.toMillis() + " ms");
            }
            pause(POLL);
        }
    }

    /**
     * Checks {@code invariant} repeatedly until the wall clock reaches {@code end}, failing at the
     * first check that does not hold. Each check counts only if it completed before {@code end}.
     */
    public static void holdsUntil(String description, Instant end, BooleanSupplier invariant) {
        int checks = 0;
        while (true) {
            boolean holds = invariant.getAsBoolean();
            Instant completed = Instant.now();
            if (!completed.isBefore(end)) {
                break;
            }
            checks++;
            if (!holds) {
                throw new AssertionError(description + " stopped holding at " + completed + ", before " + end
                        + " (after " + checks + " checks)");
            }
            pause(POLL);
        }
        if (checks == 0) {
            throw new AssertionError(description + ": " + end + " had already passed; the test ran too late to check it");
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}
