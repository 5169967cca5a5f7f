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
 * @param closedKept closed executions the engine keeps ({@code --retain closed-executions}): the largest part
 *     of the journal's state besides what is pending, so a journal still growing while this does is filling
 *     up to that bound, not keeping what it forgot
 * @param heapAfterGcMb heap in use right after a full collection
 * @param residentMb the process's resident memory, -1 if unknown
 * @param journalBytes the Step Functions journal on disk now (0 in memory)
 * @param journalPeakBytes the largest the journal was, sampled each second, during the minute
 * @param dataBytes everything under the data directory (tables, journal, events, checkpoints)
 */
public record SoakMinute(int minute, long written, long expired, long pending, int openExecutions, int closedKept,
                         long heapAfterGcMb,
                         long residentMb, long journalBytes, long journalPeakBytes, long dataBytes) {

    /** The header of the table {@link #toText} rows make. */
    public static String header() {
        return String.format(Locale.ROOT, "%6s %10s %10s %8s %8s %8s %9s %8s %11s %11s %10s", "minute", "written",
                "expired", "pending", "open", "kept", "heap MB", "RSS MB", "journal KB", "jrnl peak", "data MB");
    }

    /** One row of the table. */
    public String toText() {
        return String.format(Locale.ROOT, "%6d %10d %10d %8d %8d %8d %9d %8d %11d %11d %10.1f", minute, written,
                expired, pending, openExecutions, closedKept, heapAfterGcMb, residentMb, kb(journalBytes),
                kb(journalPeakBytes), dataBytes / (1024.0 * 1024.0));
    }

    /** Whole KB: windowed mode's journal is tens of KB, which a tenth of a MB would hide. */
    private static long kb(long bytes) {
        return Math.round(bytes / 1024.0);
    }
}
