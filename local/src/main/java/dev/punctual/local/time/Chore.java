package dev.punctual.local.time;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Housekeeping the runtime repeats on its {@link Timer} for as long as it runs (forgetting what is past
 * its bounds): each run goes to an executor, off the timer's thread, and schedules the next once it is
 * done, so two runs never overlap. The wake-ups are {@link Timer#schedulePoll polls}: nothing is owed
 * at any instant, so a manual timer that skips time may run a chore once, late, for all it passed.
 */
public final class Chore implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Chore.class.getName());

    private final String name;
    private final Timer timer;
    private final Executor executor;
    private final Duration interval;
    private final Supplier<Duration> run;
    private volatile boolean closed;
    private volatile Timer.Cancellable next;

    private Chore(String name, Timer timer, Executor executor, Duration interval, Supplier<Duration> run) {
        this.name = Objects.requireNonNull(name, "name");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.interval = Objects.requireNonNull(interval, "interval");
        this.run = Objects.requireNonNull(run, "run");
    }

    /**
     * Starts {@code run}, first {@code first} from now, then again after the delay each run returns (a
     * run that fails is logged and followed by another one {@code interval} later), until closed.
     *
     * @param name what the chore does, for its log line ("trimming stream records")
     */
    public static Chore start(String name, Timer timer, Executor executor, Duration first, Duration interval,
            Supplier<Duration> run) {
        Chore chore = new Chore(name, timer, executor, interval, run);
        chore.scheduleIn(first);
        return chore;
    }

    private void scheduleIn(Duration delay) {
        if (closed) {
            return;
        }
        next = timer.schedulePoll(timer.clock().instant().plus(delay), () -> {
            try {
                executor.execute(this::runOnce);
            } catch (RejectedExecutionException closing) {
                // The runtime is closing: its threads are gone.
            }
        });
    }

    private void runOnce() {
        if (closed) {
            return;
        }
        Duration delay = interval;
        try {
            delay = run.get();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, name + " failed (" + e + "); trying again in " + interval.toSeconds() + " s");
        } finally {
            scheduleIn(delay);
        }
    }

    /** Runs no more: a run in progress finishes, and none follows it. */
    @Override
    public void close() {
        closed = true;
        Timer.Cancellable pending = next;
        if (pending != null) {
            pending.cancel();
        }
    }
}
