package dev.punctual.local.time;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The work a runtime has handed to its threads and not yet finished, counted across every pool it
 * makes here. A test that moves time asks whether the runtime is done with what was due: that is true
 * only once nothing handed over is queued or running, which a pool's own {@code getActiveCount} cannot
 * say exactly (a task taken from the queue and not yet started is in neither).
 */
public final class InFlight {

    private final AtomicLong handedOver = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();

    /** Tasks queued or running in this counter's pools now. */
    public long count() {
        return handedOver.get() - finished.get();
    }

    /** Tasks ever handed to this counter's pools: unchanged across a span means nothing started in it. */
    public long handedOver() {
        return handedOver.get();
    }

    /** A fixed pool of {@code threads} threads made by {@code factory}, its work counted here. */
    public ExecutorService pool(int threads, ThreadFactory factory) {
        return new CountedPool(threads, factory);
    }

    private final class CountedPool extends ThreadPoolExecutor {

        CountedPool(int threads, ThreadFactory factory) {
            super(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
        }

        @Override
        public void execute(Runnable command) {
            handedOver.incrementAndGet();
            try {
                super.execute(command);
            } catch (RejectedExecutionException e) {
                finished.incrementAndGet();
                throw e;
            }
        }

        @Override
        protected void afterExecute(Runnable task, Throwable failure) {
            finished.incrementAndGet();
        }

        @Override
        public java.util.List<Runnable> shutdownNow() {
            java.util.List<Runnable> dropped = super.shutdownNow();
            finished.addAndGet(dropped.size());
            return dropped;
        }
    }
}
