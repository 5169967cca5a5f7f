package dev.punctual.expiry;

import java.util.List;

/**
 * Carries out one stream batch's changes: {@link ChangeProcessor} in per-item mode,
 * {@link dev.punctual.windowed.WindowedProcessor} in windowed mode.
 */
public interface BatchProcessor extends AutoCloseable {

    /**
     * Processes {@code changes} (in stream order) and returns the sequence numbers to report as
     * batch item failures, in stream order; empty when everything succeeded.
     */
    default List<String> process(List<StreamChange> changes) {
        return process(changes, ThrottleBackoff.noRetries());
    }

    /**
     * As {@link #process(List)}, retrying throttled Step Functions calls within {@code retries}'
     * deadline; a change still throttled then is reported failed like any other.
     */
    List<String> process(List<StreamChange> changes, ThrottleBackoff.Batch retries);

    /** Releases worker threads. */
    @Override
    void close();
}
