package dev.punctual.expiry;

import java.time.Instant;
import java.util.List;

/**
 * How a mode carries out decisions: the one thing the modes do differently with a stream batch.
 * Per item ({@code dev.punctual.peritem.ItemScheduler}) one execution is started per item, and stale
 * ones are stopped; windowed ({@code dev.punctual.windowed.BucketScheduler}) a batch's items are indexed
 * into time buckets and the buckets' executions started. Everything around it (the rules, the order
 * within an item, what a failure fails, logs and metrics) is {@link ChangeProcessor}'s and the same in
 * every mode.
 *
 * @param <P> the mode's plan for one record: what its steps need beyond the decision
 */
public interface Scheduler<P extends Plan> {

    /**
     * What this mode makes of the rules' decision for one record, at {@code now} (the batch's instant, the
     * one the rules decided at). A mode adds here what only it knows: per item, the execution's name and
     * input, its payload limit and the stale executions to stop, each of which may restate the decision;
     * a mode with nothing to add takes it as found ({@link Plan#asFound}).
     */
    P plan(Decision decision, Instant now);

    /**
     * Begins one batch. {@code plans} are the batch's plans in stream order, those whose decision is
     * {@link Decision.Verdict#IGNORE} included. A mode that schedules a batch together (one index write
     * and one bucket start for many items) does that work here; a mode that works item by item does it in
     * the returned step.
     *
     * @param retries the batch's budget for retrying throttled Step Functions calls
     * @return the step {@link ChangeProcessor} runs once per plan that asks for work, in stream order
     *     within an item and concurrently across items
     */
    Step<P> begin(List<P> plans, ThrottleBackoff.Batch retries);

    /** Carries out one plan of the batch. */
    @FunctionalInterface
    interface Step<P extends Plan> {

        /**
         * Carries out {@code plan}, one of those given to {@link #begin}, whose decision asks for work.
         *
         * @throws RuntimeException when it could not be carried out; the record is reported for retry
         */
        Scheduled carryOut(P plan);
    }
}
