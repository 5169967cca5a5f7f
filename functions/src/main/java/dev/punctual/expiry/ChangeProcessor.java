package dev.punctual.expiry;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Runs a batch of stream changes through the rules and a mode's {@link Scheduler}, the same way in
 * every mode: each change is decided, the scheduler plans what the decision means in its mode and
 * carries the plans out, and {@link ItemOrder} keeps changes to the same item in stream order (changes
 * to different items run concurrently, on {@code pool}) and fails an item's later changes once one of
 * them failed. The listener hears of every change once, in stream order.
 *
 * <p>Whoever needs items scheduled the way a table's mode does (the stream handler, a backfill) hands
 * their changes to {@link #schedule} and reads one result per change.
 */
public final class ChangeProcessor {

    /** Hears about every change, once: the place to log decisions and to count them. */
    public interface Listener {
        /** A change was decided and carried out as {@code plan} says. */
        void decided(StreamChange change, Plan plan, Scheduled scheduled);

        /** Carrying out a change's plan failed; it is reported for retry. */
        void failed(StreamChange change, Plan plan, RuntimeException error);

        /** A change was not tried because an earlier change to the same item failed. */
        void skipped(StreamChange change, String failedSequenceNumber);
    }

    private final ExpiryRules rules;
    private final Scheduler<?> scheduler;
    private final Clock clock;
    private final Listener listener;
    private final Executor pool;

    /**
     * @param pool runs the changes of different items concurrently; its size bounds the Step Functions
     *     calls in flight at once. The caller owns it.
     */
    public ChangeProcessor(ExpiryRules rules, Scheduler<?> scheduler, Clock clock, Listener listener, Executor pool) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    /**
     * Processes {@code changes} (in stream order) and returns the sequence numbers to report as
     * batch item failures, in stream order; empty when everything succeeded.
     */
    public List<String> process(List<StreamChange> changes) {
        return process(changes, ThrottleBackoff.noRetries());
    }

    /**
     * As {@link #process(List)}, retrying throttled Step Functions calls within {@code retries}'
     * deadline; a change still throttled then is reported failed like any other.
     */
    public List<String> process(List<StreamChange> changes, ThrottleBackoff.Batch retries) {
        List<String> failed = new ArrayList<>();
        for (ItemOrder.Result<Scheduled> result : schedule(changes, retries)) {
            if (!(result instanceof ItemOrder.Done)) {
                failed.add(result.change().sequenceNumber());
            }
        }
        return failed;
    }

    /**
     * Decides every change and has the mode's scheduler plan and carry the decisions out. Returns what
     * became of each change, in stream order, after telling the listener.
     */
    public List<ItemOrder.Result<Scheduled>> schedule(List<StreamChange> changes, ThrottleBackoff.Batch retries) {
        return schedule(scheduler, changes, retries);
    }

    private <P extends Plan> List<ItemOrder.Result<Scheduled>> schedule(Scheduler<P> mode, List<StreamChange> changes,
            ThrottleBackoff.Batch retries) {
        Instant now = clock.instant();
        Map<StreamChange, P> plans = new IdentityHashMap<>();
        List<P> inOrder = new ArrayList<>(changes.size());
        for (StreamChange change : changes) {
            P plan = mode.plan(rules.decide(change, now), now);
            plans.put(change, plan);
            inOrder.add(plan);
        }
        Scheduler.Step<P> step = mode.begin(inOrder, retries);
        List<ItemOrder.Result<Scheduled>> results = ItemOrder.run(changes, change -> {
            P plan = plans.get(change);
            return plan.decision().verdict() == Decision.Verdict.IGNORE ? Unscheduled.IGNORED : step.carryOut(plan);
        }, pool);
        for (ItemOrder.Result<Scheduled> result : results) {
            StreamChange change = result.change();
            if (result instanceof ItemOrder.Done<Scheduled> done) {
                listener.decided(change, plans.get(change), done.value());
            } else if (result instanceof ItemOrder.Failed<Scheduled> failure) {
                listener.failed(change, plans.get(change), failure.error());
            } else if (result instanceof ItemOrder.Skipped<Scheduled> skipped) {
                listener.skipped(change, skipped.failedSequenceNumber());
            }
        }
        return results;
    }
}
