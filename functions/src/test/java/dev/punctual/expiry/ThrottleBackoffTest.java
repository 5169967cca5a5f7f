package dev.punctual.expiry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ThrottleBackoffTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final SteppingClock clock = new SteppingClock(T0);
    private final ThrottleBackoff backoff = new ThrottleBackoff(clock, clock, new Random(42));

    @Test
    void call_whenThrottledThenAccepted_retriesAfterFullJitterPauses() {
        AtomicInteger attempts = new AtomicInteger();
        ThrottleBackoff.Batch batch = backoff.within(Duration.ofSeconds(60));

        String result = batch.call(() -> {
            if (attempts.incrementAndGet() <= 6) {
                throw throttled();
            }
            return "started";
        });

        assertThat(result).isEqualTo("started");
        assertThat(batch.throttledCalls()).isEqualTo(6);
        assertThat(batch.gaveUp()).isZero();
        List<Duration> pauses = clock.pauses();
        assertThat(pauses).hasSize(6);
        for (int i = 0; i < pauses.size(); i++) {
            long ceiling = Math.min(ThrottleBackoff.MAX_DELAY.toMillis(), ThrottleBackoff.BASE_DELAY.toMillis() << i);
            assertThat(pauses.get(i)).as("pause %d", i).isBetween(Duration.ZERO, Duration.ofMillis(ceiling));
        }
        assertThat(pauses).as("jittered, not a fixed schedule").doesNotHaveDuplicates();
    }

    @Test
    void call_whenStillThrottledAtTheDeadline_givesUpThere_neverPausingPastIt() {
        Instant deadline = T0.plusSeconds(20);
        ThrottleBackoff.Batch batch = backoff.within(Duration.ofSeconds(20));

        assertThatThrownBy(() -> batch.call(() -> {
            throw throttled();
        })).isInstanceOf(ThrottledException.class);

        assertThat(clock.instant()).isEqualTo(deadline);
        assertThat(batch.gaveUp()).isEqualTo(1);
        assertThat(batch.throttledCalls()).isGreaterThan(5);
    }

    @Test
    void call_whenFailingOtherwise_doesNotRetry() {
        ThrottleBackoff.Batch batch = backoff.within(Duration.ofSeconds(60));

        assertThatThrownBy(() -> batch.call(() -> {
            throw new IllegalStateException("ExecutionLimitExceeded");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(clock.pauses()).isEmpty();
        assertThat(batch.throttledCalls()).isZero();
    }

    @Test
    void call_fullJitter_drawsUpToTheCeilingItself() {
        // A generator that always draws the largest value below its bound.
        java.util.random.RandomGenerator highest = new java.util.random.RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public long nextLong(long bound) {
                return bound - 1;
            }
        };
        ThrottleBackoff.Batch batch = new ThrottleBackoff(clock, clock, highest).within(Duration.ofSeconds(60));
        AtomicInteger attempts = new AtomicInteger();

        batch.call(() -> {
            if (attempts.incrementAndGet() <= 3) {
                throw throttled();
            }
            return "started";
        });

        assertThat(clock.pauses()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
    }

    @Test
    void call_whenInterruptedWhilePausing_givesUpWithTheThrottlingAndKeepsTheInterrupt() {
        ThrottleBackoff.Batch batch = new ThrottleBackoff(clock, duration -> {
            throw new InterruptedException();
        }, new Random(42)).within(Duration.ofSeconds(60));

        try {
            assertThatThrownBy(() -> batch.call(() -> {
                throw throttled();
            })).isInstanceOf(ThrottledException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(batch.gaveUp()).isEqualTo(1);
        } finally {
            Thread.interrupted();
        }
    }

    static ThrottledException throttled() {
        return new ThrottledException("StartExecution", new RuntimeException("Rate exceeded"));
    }
}
