package dev.punctual.local.measure;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * What the process spent while a trial's items fell due, in figures a busy machine hardly moves: CPU
 * time of the whole process and of DynamoDB Local's database thread (the serial section every delete
 * passes through), and the garbage collector's count and time. Per second of the window, the database
 * thread's CPU is how busy that thread was: near 1,000 ms a second, each second's deletes queue behind
 * the previous second's.
 *
 * @param window how long the measured stretch lasted
 */
public record ResourceUse(Duration window, double processCpuMillis, double databaseThreadCpuMillis, long gcCount,
                          long gcMillis) {

    /** The name prefix of the thread sqlite4java runs each database's jobs on (DynamoDB Local's only one). */
    private static final String DATABASE_THREAD_PREFIX = "SQLiteQueue";

    /** The counters at one instant; two of them make a {@link ResourceUse}. */
    public record Snapshot(Instant at, long processCpuNanos, long databaseThreadCpuNanos, long gcCount, long gcMillis) {

        /** The counters now. */
        public static Snapshot take(Instant at) {
            long gcCount = 0;
            long gcMillis = 0;
            for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcCount += Math.max(0, collector.getCollectionCount());
                gcMillis += Math.max(0, collector.getCollectionTime());
            }
            return new Snapshot(at, currentProcessCpuNanos(), currentDatabaseThreadCpuNanos(), gcCount, gcMillis);
        }

        /** What was spent from {@code earlier} until this one. */
        public ResourceUse since(Snapshot earlier) {
            return new ResourceUse(Duration.between(earlier.at, at), (processCpuNanos - earlier.processCpuNanos) / 1e6,
                    (databaseThreadCpuNanos - earlier.databaseThreadCpuNanos) / 1e6, gcCount - earlier.gcCount,
                    gcMillis - earlier.gcMillis);
        }
    }

    /** Nothing measured. */
    public static ResourceUse none() {
        return new ResourceUse(Duration.ZERO, 0, 0, 0, 0);
    }

    /** The {@code cpu} object of {@code bench --json}: totals, and CPU per second of the window. */
    public String toJson() {
        double seconds = Math.max(0.001, window.toNanos() / 1e9);
        return String.format(Locale.ROOT, "{\"windowSeconds\":%.1f,\"processMsPerSecond\":%.0f,"
                        + "\"databaseThreadMsPerSecond\":%.0f,\"gcCount\":%d,\"gcMs\":%d}",
                seconds, processCpuMillis / seconds, databaseThreadCpuMillis / seconds, gcCount, gcMillis);
    }

    /** One line for the text report. */
    public String toText() {
        double seconds = Math.max(0.001, window.toNanos() / 1e9);
        return String.format(Locale.ROOT, "cpu                process %.0f ms/s, DynamoDB Local's database thread %.0f ms/s,"
                + " over %.1f s of expiries; %d collections, %d ms", processCpuMillis / seconds,
                databaseThreadCpuMillis / seconds, seconds, gcCount, gcMillis);
    }

    private static long currentProcessCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean unix ? Math.max(0, unix.getProcessCpuTime()) : 0;
    }

    /** CPU time of every database thread in the process: one per DynamoDB Local database. */
    private static long currentDatabaseThreadCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(DATABASE_THREAD_PREFIX)) {
                total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }
}
