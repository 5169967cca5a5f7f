package dev.punctual.local.measure;

import java.util.Locale;

/**
 * One minute of a soak: what was written and expired so far, what is pending, and what the process
 * holds at the end of the minute.
 *
 * @param written items written since the soak began
 * @param expired items Punctual deleted since the soak began
 * @param pending items written and not yet deleted
 * @param openExecutions executions running in the engine
 * @param heapAfterGcMb heap in use right after a full collection
 * @param residentMb the process's resident memory, -1 if unknown
 * @param journalBytes the Step Functions journal on disk now (0 in memory)
 * @param journalPeakBytes the largest the journal was, sampled each second, during the minute
 * @param dataBytes everything under the data directory (tables, journal, events, checkpoints)
 */
public record SoakMinute(int minute, long written, long expired, long pending, int openExecutions, long heapAfterGcMb,
                         long residentMb, long journalBytes, long journalPeakBytes, long dataBytes) {

    /** The header of the table {@link #toText} rows make. */
    public static String header() {
        return String.format(Locale.ROOT, "%6s %10s %10s %8s %8s %9s %8s %11s %11s %10s", "minute", "written", "expired",
                "pending", "open", "heap MB", "RSS MB", "journal MB", "jrnl peak", "data MB");
    }

    /** One row of the table. */
    public String toText() {
        return String.format(Locale.ROOT, "%6d %10d %10d %8d %8d %9d %8d %11.1f %11.1f %10.1f", minute, written, expired,
                pending, openExecutions, heapAfterGcMb, residentMb, mb(journalBytes), mb(journalPeakBytes), mb(dataBytes));
    }

    private static double mb(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}
