package dev.punctual.expiry;

import java.util.List;

/**
 * How a mode carries out decisions: the one thing the modes do differently with a stream batch.
 * {@link ExpiryScheduler} starts one execution per item; {@link dev.punctual.windowed.BucketScheduler}
 * indexes a batch's items into time buckets and starts the buckets' executions. Everything around it
 * (the rules, the order within an item, what a failure fails, logs and metrics) is
 * {@link ChangeProcessor}'s and the same in every mode.
 */
public interface Scheduler {

    /**
     * Begins one batch. {@code decisions} are the batch's decisions in stream order, {@link Decision.Verdict#IGNORE}
     * ones included. A mode that schedules a batch together (one index write and one bucket start for
     * many items) does that work here; a mode that works item by item does it in the returned step.
     *
     * @param retries the batch's budget for retrying throttled Step Functions calls
     * @return the step {@link ChangeProcessor} runs once per decision that asks for work, in stream order
     *     within an item and concurrently across items
     */
    Step begin(List<Decision> decisions, ThrottleBackoff.Batch retries);

    /** Carries out one decision of the batch. */
    @FunctionalInterface
    interface Step {

        /**
         * Carries out {@code decision}, one of those given to {@link #begin}, that asks for work.
         *
         * @throws RuntimeException when it could not be carried out; the record is reported for retry
         */
        Scheduled carryOut(Decision decision);
    }
}
