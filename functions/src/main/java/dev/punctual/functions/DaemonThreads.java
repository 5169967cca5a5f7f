package dev.punctual.functions;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for worker pools that must never keep a JVM alive: a Lambda container is frozen, not shut
 * down, and the local runtime closes its pools itself. Named {@code <prefix>-<n>} so a thread dump
 * says whose they are.
 */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** A factory of daemon threads named {@code prefix-1}, {@code prefix-2}, ... */
    public static ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
