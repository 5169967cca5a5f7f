package dev.punctual.backfill;

/**
 * A backfill that cannot start as asked: no such table, no TTL to read, a value out of range, a table
 * this workflow does not serve. The message says what was wrong and what to do. The workflow does
 * not retry it ({@link dev.punctual.statemachine.BackfillWorkflow#ERROR_INPUT}): the same input would
 * fail the same way.
 */
public final class BackfillInputException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public BackfillInputException(String message) {
        super(message);
    }
}
