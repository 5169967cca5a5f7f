package dev.punctual.local.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A chore on a manual timer: when it runs, what a run's answer and failure change, and that close ends it. */
class ChoreTest {

    private static final Instant START = Instant.parse("2031-01-01T00:00:00Z");
    private static final Duration INTERVAL = Duration.ofMinutes(1);

    private final ManualTimer timer = ManualTimer.startingAt(START);
    private final List<Instant> runs = new ArrayList<>();

    @Test
    void runsFirstAfterItsFirstDelay_thenAfterTheDelayEachRunReturns() {
        List<Duration> answers = new ArrayList<>(List.of(Duration.ofSeconds(1), INTERVAL));
        Chore.start("counting", timer, Runnable::run, Duration.ofSeconds(30), INTERVAL, () -> {
            runs.add(timer.clock().instant());
            return answers.isEmpty() ? INTERVAL : answers.remove(0);
        });

        timer.advance(Duration.ofSeconds(29));
        assertThat(runs).isEmpty();
        timer.advance(Duration.ofSeconds(1));
        timer.advance(Duration.ofSeconds(1));
        timer.advance(INTERVAL);

        assertThat(runs).containsExactly(START.plusSeconds(30), START.plusSeconds(31), START.plusSeconds(91));
    }

    @Test
    void aFailedRun_isFollowedByAnotherAfterTheInterval() {
        Chore.start("failing once", timer, Runnable::run, Duration.ZERO, INTERVAL, () -> {
            runs.add(timer.clock().instant());
            if (runs.size() == 1) {
                throw new IllegalStateException("database closed");
            }
            return Duration.ofSeconds(5);
        });

        timer.advance(INTERVAL.plusSeconds(5));

        assertThat(runs).containsExactly(START, START.plus(INTERVAL), START.plus(INTERVAL).plusSeconds(5));
    }

    @Test
    void closed_runsNoMore() {
        Chore chore = Chore.start("closed", timer, Runnable::run, INTERVAL, INTERVAL, () -> {
            runs.add(timer.clock().instant());
            return INTERVAL;
        });
        timer.advance(INTERVAL);

        chore.close();
        timer.advance(INTERVAL.multipliedBy(3));

        assertThat(runs).containsExactly(START.plus(INTERVAL));
        assertThat(timer.pending()).isZero();
    }
}
