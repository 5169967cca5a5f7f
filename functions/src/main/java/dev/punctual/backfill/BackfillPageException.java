package dev.punctual.backfill;

/**
 * A page whose items were not all scheduled: its position is not saved, and the workflow retries the
 * page whole (what was scheduled is scheduled again, harmlessly). The message names the first failure.
 */
public final class BackfillPageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BackfillPageException(String table, int segment, long failed, int items, RuntimeException first) {
        super(failed + " of " + items + " items of a page of segment " + segment + " of " + table
                + " could not be scheduled (first: " + first + "); the page is retried whole", first);
    }
}
