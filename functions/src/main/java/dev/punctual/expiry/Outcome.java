package dev.punctual.expiry;

/**
 * What carrying out one record's decision did, in its mode's own words: per item an execution
 * {@code STARTED}, windowed an item {@code INDEXED}, and so on. Each mode's scheduler has its own
 * enum of them; the log line shows the name in lower case under {@code outcome}.
 */
public interface Outcome {

    /** The outcome's name, as an enum constant has one. */
    String name();
}
