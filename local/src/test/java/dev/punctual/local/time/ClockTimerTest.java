package dev.punctual.local.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The real-clock timer; waits are a few tens of milliseconds, the shortest that shows the behaviour. */
class ClockTimerTest {

    @Test
    void schedule_whenEarlierEntryArrives_wakesForItAndNeverFiresEarly() throws InterruptedException {
        Clock clock = Clock.systemUTC();
        try (ClockTimer timer = new ClockTimer(clock, Runnable::run, "test-timer")) {
            List<String> order = new CopyOnWriteArrayList<>();
            List<Long> earlyByNanos = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(2);
            Instant late = clock.instant().plusMillis(80);
            timer.schedule(late, () -> {
                order.add("late");
                earlyByNanos.add(java.time.Duration.between(clock.instant(), late).toNanos());
                done.countDown();
            });
            Instant early = clock.instant().plusMillis(30);
            timer.schedule(early, () -> {
                order.add("early");
                earlyByNanos.add(java.time.Duration.between(clock.instant(), early).toNanos());
                done.countDown();
            });

            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(order).containsExactly("early", "late");
            assertThat(earlyByNanos).allMatch(nanos -> nanos <= 0);
        }
    }

    @Test
    void cancel_whenPending_neverRuns() throws InterruptedException {
        try (ClockTimer timer = new ClockTimer(Clock.systemUTC(), Runnable::run, "test-timer")) {
            CountDownLatch ran = new CountDownLatch(1);
            CountDownLatch marker = new CountDownLatch(1);
            Timer.Cancellable cancelled = timer.schedule(Instant.now().plusMillis(20), ran::countDown);
            timer.schedule(Instant.now().plusMillis(40), marker::countDown);

            assertThat(cancelled.cancel()).isTrue();

            assertThat(marker.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(ran.getCount()).isEqualTo(1);
            assertThat(timer.pending()).isZero();
        }
    }
}
