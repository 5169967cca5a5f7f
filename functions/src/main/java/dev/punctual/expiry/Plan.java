package dev.punctual.expiry;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a mode makes of one record's {@link Decision} before it carries it out ({@link Scheduler#plan}):
 * the decision as the mode carries it out, which is what the log line and the metrics report, and what
 * the mode already knows it will do. A mode with nothing of its own to add takes the decision as found
 * ({@link #asFound}).
 */
@FunctionalInterface
public interface Plan {

    /**
     * The decision as this mode carries it out: the rules' own, or restated in the mode's words
     * ({@link Decision#restated}) where the mode adds a limit or a stop of its own.
     */
    Decision decision();

    /**
     * The execution the mode will start for the item, when it names one before starting it (per item):
     * a failed record's log line names it.
     */
    default Optional<String> execution() {
        return Optional.empty();
    }

    /**
     * The executions the mode will stop because this record left them stale; a record with any is
     * counted as superseded.
     */
    default List<String> stops() {
        return List.of();
    }

    /** The rules' decision carried out as it is: no execution named ahead, nothing stopped. */
    static Plan asFound(Decision decision) {
        Objects.requireNonNull(decision, "decision");
        return () -> decision;
    }
}
