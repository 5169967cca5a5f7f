package dev.punctual.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    @Test
    void acquire_allowsOneSecondsBurstThenTheRate() throws InterruptedException {
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        RateLimiter limiter = new RateLimiter(10, clock, clock);

        for (int i = 0; i < 10; i++) {
            limiter.acquire();
        }
        assertThat(clock.slept()).isZero();
        for (int i = 0; i < 40; i++) {
            limiter.acquire();
        }

        assertThat(clock.slept()).isBetween(Duration.ofMillis(3_999), Duration.ofMillis(4_001));
    }

    @Test
    void acquire_refillsWhileTimePasses() throws InterruptedException {
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        RateLimiter limiter = new RateLimiter(2, clock, clock);
        limiter.acquire();
        limiter.acquire();

        clock.sleep(Duration.ofSeconds(1));
        Duration before = clock.slept();
        limiter.acquire();
        limiter.acquire();

        assertThat(clock.slept()).isEqualTo(before);
    }

    @Test
    void acquire_withRateZero_neverWaits() throws InterruptedException {
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        RateLimiter limiter = new RateLimiter(0, clock, clock);
        for (int i = 0; i < 10_000; i++) {
            limiter.acquire();
        }

        assertThat(clock.slept()).isZero();
        assertThatThrownBy(() -> new RateLimiter(-1, clock, clock)).hasMessageContaining("items per second");
    }
}
