package dev.punctual.windowed;

/**
 * How far a minute's runner has got, as the schedule index records it for the stream handler: the
 * minute bucket's own seal, which its runner moves forward one due second at a time (see
 * {@link BucketWorker#step} for the protocol). Both numbers only ever grow, whichever runner (a duplicate, a
 * retry, a successor generation) writes them.
 *
 * @param started whether any runner of the minute has begun: before that, every entry of the minute is
 *     the runner's to find
 * @param through the runner has sealed every second up to this one (and read the entries of this one):
 *     an entry written for such a second now is the handler's
 * @param next the next due second that the runner's last read after {@code through} found; meaningful
 *     only when greater than {@code through} (otherwise the read is still in flight). The seconds
 *     between {@code through} and {@code next} are a gap the runner will not look at again; the
 *     minute's end ({@code start + 60}) when nothing was found
 */
public record RunnerMark(boolean started, long through, long next) {

    /** No runner of the minute has begun. */
    public static final RunnerMark NOT_STARTED = new RunnerMark(false, Long.MIN_VALUE, Long.MIN_VALUE);

    /** Whether {@link #next} answers the read that followed the latest {@link #through}. */
    public boolean nextKnown() {
        return started && next > through;
    }
}
