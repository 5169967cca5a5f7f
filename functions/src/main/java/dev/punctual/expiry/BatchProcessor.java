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
    List<String> process(List<StreamChange> changes);

    /** Releases worker threads. */
    @Override
    void close();
}
