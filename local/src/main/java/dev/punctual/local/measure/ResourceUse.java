package dev.punctual.local.measure;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the process spent while a trial's items fell due, in figures a busy machine hardly moves: CPU
 * time of the whole process and of DynamoDB Local's database thread (the serial section every delete
 * passes through), of every pool of threads, and the garbage collector's count and time. Per second of
 * the window, the database thread's CPU is how busy that thread was (near 1,000 ms a second, each
 * second's deletes queue behind the previous second's), and the process's how much of the machine's
 * cores it took.
 *
 * @param window how long the measured stretch lasted
 */
public record ResourceUse(Duration window, double processCpuMillis, double databaseThreadCpuMillis, long gcCount,
                          long gcMillis, Map<String, Double> threadCpuMillis) {

    /** The name prefix of the thread sqlite4java runs each database's jobs on (DynamoDB Local's only one). */
    private static final String DATABASE_THREAD_PREFIX = "SQLiteQueue";
    /** The group {@link #threadCpuMillis} puts the database threads in. */
    static final String DATABASE_GROUP = "database";
    /** Groups using less than this many ms a second are left out of the report. */
    private static final double REPORTED_MS_PER_SECOND = 1;

    public ResourceUse {
        threadCpuMillis = Map.copyOf(threadCpuMillis);
    }

    /** A use with no breakdown by thread. */
    public ResourceUse(Duration window, double processCpuMillis, double databaseThreadCpuMillis, long gcCount, long gcMillis) {
        this(window, processCpuMillis, databaseThreadCpuMillis, gcCount, gcMillis, Map.of());
    }

    /** The counters at one instant; two of them make a {@link ResourceUse}. */
    public record Snapshot(Instant at, long processCpuNanos, long gcCount, long gcMillis, Map<Long, Long> threadCpuNanos,
                           Map<Long, String> threadNames) {

        /** The counters now. */
        public static Snapshot take(Instant at) {
            long gcCount = 0;
            long gcMillis = 0;
            for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcCount += Math.max(0, collector.getCollectionCount());
                gcMillis += Math.max(0, collector.getCollectionTime());
            }
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            Map<Long, Long> cpu = new HashMap<>();
            Map<Long, String> names = new HashMap<>();
            for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
                if (info != null) {
                    cpu.put(info.getThreadId(), Math.max(0, threads.getThreadCpuTime(info.getThreadId())));
                    names.put(info.getThreadId(), info.getThreadName());
                }
            }
            return new Snapshot(at, currentProcessCpuNanos(), gcCount, gcMillis, cpu, names);
        }

        /**
         * What was spent from {@code earlier} until this one. A thread started meanwhile counts from
         * zero; one that ended meanwhile is not counted (the runtime's pools outlive a trial).
         */
        public ResourceUse since(Snapshot earlier) {
            Map<String, Double> byGroup = new TreeMap<>();
            threadCpuNanos.forEach((id, nanos) -> byGroup.merge(group(threadNames.get(id)),
                    (nanos - earlier.threadCpuNanos.getOrDefault(id, 0L)) / 1e6, Double::sum));
            return new ResourceUse(Duration.between(earlier.at, at), (processCpuNanos - earlier.processCpuNanos) / 1e6,
                    byGroup.getOrDefault(DATABASE_GROUP, 0.0), gcCount - earlier.gcCount, gcMillis - earlier.gcMillis,
                    byGroup);
        }
    }

    /**
     * The group a thread's CPU is reported under: its pool's name without the thread's number
     * ({@code punctual-bucket}, {@code punctual-task}, ...), the database threads as {@link #DATABASE_GROUP},
     * and every table's stream reader as {@code stream-reader} (a reader runs the stream function too).
     */
    static String group(String threadName) {
        if (threadName.startsWith(DATABASE_THREAD_PREFIX)) {
            return DATABASE_GROUP;
        }
        if (threadName.startsWith("stream-") && !threadName.equals("stream-discovery")) {
            return "stream-reader";
        }
        return threadName.replaceFirst("-\\d+$", "");
    }

    /** Nothing measured. */
    public static ResourceUse none() {
        return new ResourceUse(Duration.ZERO, 0, 0, 0, 0);
    }

    /**
     * The {@code cpu} object of {@code bench --json}: totals, CPU per second of the window, and per
     * second by thread group, busiest first ({@code other}: what no Java thread accounts for, the
     * collector's and the compiler's threads among it).
     */
    public String toJson() {
        double seconds = Math.max(0.001, window.toNanos() / 1e9);
        StringBuilder groups = new StringBuilder();
        byGroupPerSecond(seconds).forEach((group, perSecond) -> groups.append(groups.length() == 0 ? "" : ",")
                .append('"').append(group).append("\":").append(String.format(Locale.ROOT, "%.0f", perSecond)));
        return String.format(Locale.ROOT, "{\"windowSeconds\":%.1f,\"processMsPerSecond\":%.0f,"
                        + "\"databaseThreadMsPerSecond\":%.0f,\"gcCount\":%d,\"gcMs\":%d,\"threadsMsPerSecond\":{%s}}",
                seconds, processCpuMillis / seconds, databaseThreadCpuMillis / seconds, gcCount, gcMillis, groups);
    }

    /** CPU ms per second by thread group, busiest first, with {@code other} for the rest of the process. */
    private Map<String, Double> byGroupPerSecond(double seconds) {
        Map<String, Double> perSecond = new LinkedHashMap<>();
        threadCpuMillis.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .filter(e -> e.getValue() / seconds >= REPORTED_MS_PER_SECOND)
                .forEach(e -> perSecond.put(e.getKey(), e.getValue() / seconds));
        if (!threadCpuMillis.isEmpty()) {
            double threads = threadCpuMillis.values().stream().mapToDouble(Double::doubleValue).sum();
            perSecond.put("other", Math.max(0, processCpuMillis - threads) / seconds);
        }
        return perSecond;
    }

    /** The lines for the text report. */
    public String toText() {
        double seconds = Math.max(0.001, window.toNanos() / 1e9);
        StringBuilder groups = new StringBuilder();
        byGroupPerSecond(seconds).forEach((group, perSecond) -> groups.append(groups.length() == 0 ? "" : ", ")
                .append(group).append(' ').append(String.format(Locale.ROOT, "%.0f", perSecond)));
        return String.format(Locale.ROOT, "cpu                process %.0f ms/s, DynamoDB Local's database thread %.0f ms/s,"
                + " over %.1f s of expiries; %d collections, %d ms", processCpuMillis / seconds,
                databaseThreadCpuMillis / seconds, seconds, gcCount, gcMillis)
                + (groups.length() == 0 ? "" : String.format(Locale.ROOT, "%n  by thread (ms/s)  %s", groups));
    }

    private static long currentProcessCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean unix ? Math.max(0, unix.getProcessCpuTime()) : 0;
    }

}
