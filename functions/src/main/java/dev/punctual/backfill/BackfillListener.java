package dev.punctual.backfill;

/** Hears how a backfill goes, e.g. to draw a progress bar. Called from the scanning threads. */
public interface BackfillListener {

    /** Nothing to hear. */
    BackfillListener NONE = new BackfillListener() {
    };

    /** The scan starts; {@code estimatedItems} is DynamoDB's item count, refreshed about every six hours. */
    default void started(long estimatedItems) {
    }

    /** A page was processed; {@code soFar} counts this run up to now. */
    default void progressed(BackfillSummary soFar) {
    }
}
