package dev.punctual.expiry;

import java.util.List;
import java.util.Optional;

/**
 * What a mode's {@link Scheduler} did with one record's decision: its outcome, the execution that
 * now carries the item (if the mode names one) and the stale executions it stopped.
 */
public interface Scheduled {

    Outcome outcome();

    /** The execution started or found pending for the item, if any. */
    Optional<String> executionName();

    /** The stale executions stopped: those that were running and those that had already ended. */
    List<String> stopped();
}
