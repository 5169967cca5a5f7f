package dev.punctual.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.FakeExecutions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Backfill's StartExecution calls wait for the rate's permits; describe and stop pass straight through. */
class PacedExecutionsTest {

    private final FakeExecutions executions = new FakeExecutions();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void start_waitsForAPermit_andAnswersAsTheExecutionsDo() {
        PacedExecutions paced = new PacedExecutions(executions, new RateLimiter(1, clock, clock));

        assertThat(paced.start("a", "{}")).isEqualTo(Executions.StartResult.STARTED);
        assertThat(paced.start("a", "{\"other\":1}")).isEqualTo(Executions.StartResult.NAME_TAKEN);
        assertThat(clock.slept()).as("the second start waited a second for its permit").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void describeAndStop_passStraightThrough_withoutAPermit() {
        PacedExecutions paced = new PacedExecutions(executions, new RateLimiter(1, clock, clock));
        paced.start("a", "{}");

        assertThat(paced.describe("a").status()).isEqualTo(Executions.Status.RUNNING);
        assertThat(paced.stop("a")).isEqualTo(Executions.StopResult.STOPPED);
        assertThat(paced.stop("missing")).isEqualTo(Executions.StopResult.NOT_FOUND);
        assertThat(clock.slept()).isEqualTo(Duration.ZERO);
    }

    @Test
    void start_interruptedWhileWaiting_failsAndKeepsTheInterrupt() {
        RateLimiter interrupted = new RateLimiter(1, clock, duration -> {
            throw new InterruptedException("stopping");
        });
        PacedExecutions paced = new PacedExecutions(executions, interrupted);
        paced.start("a", "{}");

        try {
            assertThatThrownBy(() -> paced.start("b", "{}")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("interrupted while pacing StartExecution b");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(executions.calls()).containsExactly("start a");
    }
}
