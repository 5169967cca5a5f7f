package dev.punctual.local.measure;

import java.time.Duration;
import java.util.Locale;

/**
 * What scheduling a backlog left: how long writing and scheduling took, how many executions are
 * open for it, and the heap after a collection. For {@code bench --schedule-only}, which measures
 * what a bulk import costs to hold pending, without waiting for its TTLs.
 */
public record ScheduleReport(int items, Duration writing, Duration scheduling, int openExecutions, long heapMb) {

    public String toJson() {
        return String.format(Locale.ROOT,
                "{\"items\":%d,\"writingSeconds\":%.1f,\"schedulingSeconds\":%.1f,\"schedulingPerSecond\":%.1f,"
                        + "\"openExecutions\":%d,\"heapMb\":%d}",
                items, writing.toMillis() / 1e3, scheduling.toMillis() / 1e3, perSecond(), openExecutions, heapMb);
    }

    public String toText() {
        return String.format(Locale.ROOT, String.join("%n",
                "items pending      %d",
                "writing            %.1f s",
                "scheduling         %.1f s (%.0f records/s, stream backlog to pending)",
                "open executions    %d",
                "heap used          %d MB (after a collection)"),
                items, writing.toMillis() / 1e3, scheduling.toMillis() / 1e3, perSecond(), openExecutions, heapMb);
    }

    private double perSecond() {
        return items / Math.max(0.001, scheduling.toNanos() / 1e9);
    }
}
