package dev.punctual.local.stepfunctions.quotas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private final ManualClock clock = new ManualClock(T0);

    @Test
    void tryAcquire_whenFull_grantsTheBurstThenRefillsAtTheRate() {
        TokenBucket bucket = new TokenBucket(10, 4, clock);
        assertThat(acquired(bucket, 25)).isEqualTo(10);
        clock.set(T0.plusMillis(500));
        assertThat(acquired(bucket, 25)).isEqualTo(2);
        clock.set(T0.plusSeconds(100));
        assertThat(acquired(bucket, 25)).as("never more than the capacity, however long it rested").isEqualTo(10);
    }

    @Test
    void reserve_whenEmpty_queuesEachRequestOneRefillIntervalAfterThePrevious() {
        TokenBucket bucket = new TokenBucket(2, 4, clock);
        assertThat(bucket.reserve()).isZero();
        assertThat(bucket.reserve()).isZero();
        assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(250));
        assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(500));
        clock.set(T0.plusMillis(500));
        assertThat(bucket.available()).isEqualTo(0.0);
        assertThat(bucket.tryAcquire()).as("reservations hold the refill until they are due").isFalse();
        assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void transitions_withinTheBurst_areAdmittedAtOnceAndNotCounted_evenOnAClockThatMovesBetweenReads() {
        java.time.Clock ticking = new java.time.Clock() {
            private long micros;

            @Override
            public synchronized Instant instant() {
                return T0.plusNanos(1_000 * micros++);
            }

            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }
        };
        Throttles throttles = Throttles.of(QuotaSettings.awsDefaults()
                .withOverride("state-transition-burst=5").withOverride("state-transition-rate=1"), ticking);
        for (int i = 0; i < 5; i++) {
            Instant now = ticking.instant();
            assertThat(throttles.transitions().admit(now)).isEqualTo(now);
        }
        assertThat(throttles.counts().stateTransitions()).isZero();
        Instant now = ticking.instant();
        assertThat(throttles.transitions().admit(now)).isAfter(now.plusMillis(990));
        assertThat(throttles.counts().stateTransitions()).isEqualTo(1);
    }

    @Test
    void constructor_whenRateNotPositive_refuses() {
        assertThatThrownBy(() -> new TokenBucket(10, 0, clock)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive rate");
    }

    private static int acquired(TokenBucket bucket, int attempts) {
        int granted = 0;
        for (int i = 0; i < attempts; i++) {
            if (bucket.tryAcquire()) {
                granted++;
            }
        }
        return granted;
    }
}
