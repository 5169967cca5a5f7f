package dev.punctual.local.measure;

/** Percentiles of sorted samples, one definition for every report. */
public final class Percentiles {

    private Percentiles() {
    }

    /** The nearest-rank {@code percentile} of {@code sorted} (ascending), or 0 when there are none. */
    public static long nearestRank(long[] sorted, double percentile) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1];
    }

    /** The largest of {@code sorted} (ascending), or 0 when there are none. */
    public static long max(long[] sorted) {
        return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
    }
}
