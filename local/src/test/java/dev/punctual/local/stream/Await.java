package dev.punctual.local.stream;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a bounded poll loop (no Awaitility here). */
final class Await {

    private Await() {
    }

    static void until(BooleanSupplier condition, Duration timeout, Supplier<String> description) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + description.get());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + description.get(), e);
            }
        }
    }

    static void until(BooleanSupplier condition, Supplier<String> description) {
        until(condition, Duration.ofSeconds(10), description);
    }
}
