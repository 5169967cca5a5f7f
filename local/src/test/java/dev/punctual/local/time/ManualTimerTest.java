package dev.punctual.local.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualTimerTest {

    private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

    private final ManualTimer timer = ManualTimer.startingAt(T0);
    private final List<String> ran = new ArrayList<>();

    @Test
    void advanceTo_whenBeforeDue_neverRunsEarly() {
        timer.schedule(T0.plusSeconds(10), () -> ran.add("a"));

        timer.advanceTo(T0.plusSeconds(10).minusNanos(1));

        assertThat(ran).isEmpty();
        timer.advanceTo(T0.plusSeconds(10));
        assertThat(ran).containsExactly("a");
    }

    @Test
    void advanceTo_runsInDueOrderThenSchedulingOrder_atTheirInstants() {
        List<Instant> at = new ArrayList<>();
        timer.schedule(T0.plusSeconds(3), () -> { ran.add("c"); at.add(timer.clock().instant()); });
        timer.schedule(T0.plusSeconds(1), () -> { ran.add("a"); at.add(timer.clock().instant()); });
        timer.schedule(T0.plusSeconds(1), () -> { ran.add("b"); at.add(timer.clock().instant()); });

        timer.advance(Duration.ofMinutes(1));

        assertThat(ran).containsExactly("a", "b", "c");
        assertThat(at).containsExactly(T0.plusSeconds(1), T0.plusSeconds(1), T0.plusSeconds(3));
        assertThat(timer.clock().instant()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void cancel_whenPending_withdrawsAction() {
        Timer.Cancellable first = timer.schedule(T0.plusSeconds(1), () -> ran.add("a"));
        timer.schedule(T0.plusSeconds(2), () -> ran.add("b"));

        assertThat(first.cancel()).isTrue();
        timer.advance(Duration.ofSeconds(5));

        assertThat(ran).containsExactly("b");
        assertThat(first.cancel()).isFalse();
    }

    @Test
    void schedule_whenActionSchedulesDueWork_runsItInTheSameAdvance() {
        timer.schedule(T0.plusSeconds(1), () -> timer.schedule(T0, () -> ran.add("past")));

        timer.advance(Duration.ofSeconds(1));

        assertThat(ran).containsExactly("past");
    }

    @Test
    void queue_whenManyEntriesCancelledAtRandom_keepsHeapOrder() {
        WakeUpQueue queue = new WakeUpQueue();
        java.util.Random random = new java.util.Random(1);
        List<WakeUpQueue.Entry> entries = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            entries.add(queue.add(T0.plusMillis(random.nextInt(100_000)), () -> { }, e -> false));
        }
        for (int i = 0; i < 2_000; i++) {
            queue.remove(entries.get(random.nextInt(entries.size())));
        }
        Instant previous = Instant.MIN;
        while (queue.peek() != null) {
            Instant due = queue.poll().due();
            assertThat(due).isAfterOrEqualTo(previous);
            previous = due;
        }
    }

    @Test
    void skipToNextWork_runsPollsDueOnTheWayOnce_atTheNextInstantWithWork() {
        List<Instant> polled = new ArrayList<>();
        Runnable[] poll = new Runnable[1];
        poll[0] = () -> {
            polled.add(timer.clock().instant());
            timer.schedulePoll(timer.clock().instant().plusMillis(50), poll[0]);
        };
        timer.schedulePoll(T0.plusMillis(50), poll[0]);
        timer.schedule(T0.plusSeconds(3_600), () -> ran.add("work"));

        assertThat(timer.nextWakeUp()).isEqualTo(T0.plusMillis(50));
        assertThat(timer.nextWorkWakeUp()).isEqualTo(T0.plusSeconds(3_600));
        Instant reached = timer.skipToNextWork(T0.plusSeconds(7_200));

        assertThat(reached).isEqualTo(T0.plusSeconds(3_600));
        assertThat(ran).containsExactly("work");
        assertThat(polled).containsExactly(T0.plusSeconds(3_600));
        assertThat(timer.skipToNextWork(T0.plusSeconds(7_200))).isEqualTo(T0.plusSeconds(7_200));
        assertThat(polled).hasSize(2);
    }

    @Test
    void advanceTo_runsPollsAtTheirOwnInstants_likeAnyWakeUp() {
        timer.schedulePoll(T0.plusSeconds(2), () -> ran.add("poll"));
        timer.schedule(T0.plusSeconds(1), () -> ran.add("work"));

        List<Instant> at = timer.advance(Duration.ofSeconds(5));

        assertThat(ran).containsExactly("work", "poll");
        assertThat(at).containsExactly(T0.plusSeconds(1), T0.plusSeconds(2));
    }

    @Test
    void cancel_ofAPoll_withdrawsIt() {
        Timer.Cancellable poll = timer.schedulePoll(T0.plusSeconds(1), () -> ran.add("poll"));

        assertThat(poll.cancel()).isTrue();
        timer.advance(Duration.ofSeconds(2));

        assertThat(ran).isEmpty();
        assertThat(timer.pending()).isZero();
    }
}
