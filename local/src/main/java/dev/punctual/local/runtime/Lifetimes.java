package dev.punctual.local.runtime;

import dev.punctual.functions.DaemonThreads;
import dev.punctual.local.time.InFlight;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;

/**
 * What a part of the runtime started, closed in the reverse order: what started last depends on what
 * started before it, so it stops first. A close that fails does not keep the others open; the
 * failures are reported together once everything was closed.
 */
final class Lifetimes implements AutoCloseable {

    private final String owner;
    /** Counts the work of every pool started here ({@link #ownThreads}). */
    private final InFlight work;
    /** Concurrent: a part may start things on its callers' threads (a handler per table, on first use). */
    private final Deque<AutoCloseable> started = new ConcurrentLinkedDeque<>();

    /** Lifetimes of what {@code owner} (e.g. "the local runtime") starts, named in a failed close's message. */
    Lifetimes(String owner) {
        this(owner, new InFlight());
    }

    /** Lifetimes of what {@code owner} starts, whose pools count their work in {@code work}. */
    Lifetimes(String owner, InFlight work) {
        this.owner = owner;
        this.work = work;
    }

    /** The counter the pools started here count their work in. */
    InFlight work() {
        return work;
    }

    /**
     * Starts a part that owns several things: {@code start} registers each as it starts them. If
     * starting fails, what had started is closed again and the failure rethrown.
     */
    static <T> T start(String owner, Function<Lifetimes, T> start) {
        return start(owner, new InFlight(), start);
    }

    /** {@link #start(String, Function)} with pools that count their work in {@code work}. */
    static <T> T start(String owner, InFlight work, Function<Lifetimes, T> start) {
        Lifetimes lifetimes = new Lifetimes(owner, work);
        try {
            return start.apply(lifetimes);
        } catch (RuntimeException e) {
            lifetimes.closeAfter(e);
            throw e;
        }
    }

    /** Owns {@code closeable} from now on: it closes before everything owned earlier. */
    <T extends AutoCloseable> T own(T closeable) {
        started.push(closeable);
        return closeable;
    }

    /**
     * Starts and owns a pool of {@code count} daemon threads named {@code prefix-1}, {@code prefix-2}, ...
     * Closing it interrupts them: whatever they wait on has closed before.
     */
    ExecutorService ownThreads(int count, String prefix) {
        ExecutorService threads = work.pool(count, DaemonThreads.named(prefix));
        started.push(threads::shutdownNow);
        return threads;
    }

    /** Closes everything owned, the latest first; throws once at the end if any close failed. */
    @Override
    public void close() {
        RuntimeException failure = closeAll(null);
        if (failure != null) {
            throw failure;
        }
    }

    /** Closes everything owned after {@code primary} failed, adding any close's failure to it. */
    void closeAfter(RuntimeException primary) {
        closeAll(primary);
    }

    private RuntimeException closeAll(RuntimeException primary) {
        RuntimeException failure = primary;
        AutoCloseable next;
        while ((next = started.pollFirst()) != null) {
            try {
                next.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("Shutting down " + owner + " failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }
}
