package dev.punctual.local.bench;

import dev.punctual.local.time.ClockTimer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures {@link ClockTimer} on the real clock: lateness (actual run instant minus due instant) of
 * {@code N} wake-ups due at {@code R} per second, and heap used by 1,000,000 pending entries.
 * Usage: {@code java -cp local/target/punctual.jar dev.punctual.local.bench.TimerBenchmark [wakeUps=20000] [perSecond=1000] [pending=1000000]}.
 */
public final class TimerBenchmark {

    private TimerBenchmark() {
    }

    public static void main(String[] args) throws InterruptedException {
        int wakeUps = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int perSecond = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int pending = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
        lateness(wakeUps, perSecond);
        footprint(pending);
    }

    private static void lateness(int wakeUps, int perSecond) throws InterruptedException {
        Clock clock = Clock.systemUTC();
        ExecutorService actions = Executors.newFixedThreadPool(2);
        long[] lateNanos = new long[wakeUps];
        AtomicInteger index = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(wakeUps);
        try (ClockTimer timer = new ClockTimer(clock, actions, "benchmark-timer")) {
            Instant first = clock.instant().plusSeconds(1);
            long stepNanos = 1_000_000_000L / perSecond;
            for (int i = 0; i < wakeUps; i++) {
                Instant due = first.plusNanos(stepNanos * i);
                timer.schedule(due, () -> {
                    lateNanos[index.getAndIncrement()] = Duration.between(due, clock.instant()).toNanos();
                    done.countDown();
                });
            }
            done.await(wakeUps / perSecond + 60L, TimeUnit.SECONDS);
        } finally {
            actions.shutdown();
        }
        long[] sorted = Arrays.copyOf(lateNanos, index.get());
        Arrays.sort(sorted);
        System.out.printf("lateness over %d wake-ups at %d/s: p50 %.3f ms, p99 %.3f ms, max %.3f ms, early %d%n",
                sorted.length, perSecond, ms(sorted[sorted.length / 2]), ms(sorted[(int) (sorted.length * 0.99)]),
                ms(sorted[sorted.length - 1]), Arrays.stream(sorted).filter(n -> n < 0).count());
    }

    private static void footprint(int pending) {
        Runtime runtime = Runtime.getRuntime();
        long before = usedAfterGc(runtime);
        Runnable action = () -> { };
        try (ClockTimer timer = new ClockTimer(Clock.systemUTC(), Runnable::run, "footprint-timer")) {
            Instant far = Instant.now().plus(Duration.ofDays(365));
            for (int i = 0; i < pending; i++) {
                timer.schedule(far.plusMillis(i), action);
            }
            long after = usedAfterGc(runtime);
            System.out.printf("heap for %d pending wake-ups: %.1f MB (%.0f bytes each), pending=%d%n", pending,
                    (after - before) / 1e6, (after - before) / (double) pending, timer.pending());
        }
    }

    private static long usedAfterGc(Runtime runtime) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
