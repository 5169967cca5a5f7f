package dev.punctual.expiry;

import java.time.Instant;
import java.util.List;

/**
 * The Step Functions calls expiry makes, for one state machine. One adapter talks to the real
 * service (or the local runtime's endpoint); tests use fakes. Failures that a retry may cure
 * (throttling, 5xx, network) surface as unchecked exceptions: the caller reports the record failed.
 */
public interface Executions {

    /** What happened to a StartExecution. */
    enum StartResult {
        /** Started now, or already running with the same name and input (Step Functions' idempotency). */
        STARTED,
        /** {@code ExecutionAlreadyExists}: the name is held, by a closed execution or one with another input. */
        NAME_TAKEN
    }

    /** Where the execution holding a name stands. */
    enum Status {
        /** Still waiting or deleting. */
        RUNNING,
        /** Succeeded by handing over to a horizon successor, which carries the wait on. */
        CONTINUED,
        /** Succeeded: expired the item, found it superseded, or worked its bucket. */
        CLOSED,
        /**
         * Ended without succeeding: failed, timed out or was stopped. What it was doing may be unfinished
         * (windowed mode starts a successor generation of such a bucket).
         */
        FAILED,
        /** No execution has the name. */
        MISSING
    }

    /**
     * The state of the execution holding a name; {@code stopDate} is set once it has ended
     * ({@link Status#CLOSED}, {@link Status#FAILED}, {@link Status#CONTINUED}); {@code input} is its
     * input (JSON text) when the adapter read it, else {@code null}.
     */
    record Holder(Status status, Instant stopDate, String input) {

        /** A holder whose input was not read. */
        public Holder(Status status, Instant stopDate) {
            this(status, stopDate, null);
        }
    }

    /** What happened to a StopExecution. */
    enum StopResult {
        /** Stopped, or it had already ended. */
        STOPPED,
        /** {@code ExecutionDoesNotExist}: nothing to stop. */
        NOT_FOUND
    }

    /** Starts an execution named {@code name} with {@code inputJson}. */
    StartResult start(String name, String inputJson);

    /** Describes the execution named {@code name}. */
    Holder describe(String name);

    /** Stops the execution named {@code name}, if it is running. */
    StopResult stop(String name);

    /** An execution that ended without succeeding: its name, its input (JSON text) and when it stopped. */
    record Ended(String name, String input, Instant stopDate) {
    }

    /**
     * The executions that ended {@code FAILED}, {@code TIMED_OUT} or {@code ABORTED} at or after
     * {@code since}, with their inputs: what windowed mode's sweep replaces. Only adapters of a real
     * service answer it; others refuse.
     *
     * @throws UnsupportedOperationException when this adapter cannot list executions
     */
    default List<Ended> endedUnfinishedSince(Instant since) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not list executions");
    }
}
