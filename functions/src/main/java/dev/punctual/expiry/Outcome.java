package dev.punctual.expiry;

/**
 * What carrying out one record's decision did, in its mode's own words: per item an execution
 * {@code STARTED}, windowed an item {@code INDEXED}, and so on. Each mode's scheduler has its own
 * enum of them; the log line shows the name in lower case under {@code outcome}. What the outcome means
 * for the item, in words every mode shares, is its {@link #effect()}: what a caller that schedules items
 * the way a table's mode does (a backfill) counts, without knowing the mode.
 */
public interface Outcome {

    /** The outcome's name, as an enum constant has one. */
    String name();

    /** What the outcome means for the item, whatever the mode. */
    Effect effect();

    /** What became of an item, in every mode's terms. */
    enum Effect {
        /** An execution holds the item and deletes it at its TTL (at once, when its TTL has passed). */
        PENDING,
        /** The item was deleted here: its TTL had passed, or its second had come. */
        DELETED,
        /** Nothing holds the item: no TTL to schedule, stale executions stopped, or it changed before its delete. */
        NONE
    }
}
