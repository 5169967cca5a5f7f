package dev.punctual.peritem;

import dev.punctual.expiry.Decision;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.Scheduled;
import dev.punctual.expiry.Scheduler;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.names.ItemExecutionName;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Per-item mode's {@link Scheduler}: plans each decision ({@link ItemPlan}), then carries the plan out
 * against {@link Executions}: stops the stale executions, then starts the new one, treating a name held
 * by a running execution as a duplicate.
 *
 * <p>A name held by a <em>closed</em> execution means the same item got the same TTL again after
 * that execution ended: the item was recreated after it expired, or its TTL went back to a value
 * whose execution was stopped. Native TTL would expire such an item, so it is started again under
 * {@link ItemExecutionName#restarted}, derived from the closed holder; a duplicate of the record, or
 * a backfill, meets the same holder and so the same restart name. Names are reusable 90 days after
 * an execution closes; until then, each recreation walks one step further along these names.
 *
 * <p>It works record by record, so a batch needs no preparation.
 */
public final class ItemScheduler implements Scheduler<ItemPlan> {

    /** Restarts tried for one item before the record is failed; each is one recreation within 90 days. */
    public static final int MAX_RESTARTS = 8;

    private final Executions executions;
    private final boolean cancelStale;

    /**
     * @param executions the {@code expire-item} state machine's executions
     * @param cancelStale whether to stop executions made stale by a TTL change or an application delete
     */
    public ItemScheduler(Executions executions, boolean cancelStale) {
        this.executions = executions;
        this.cancelStale = cancelStale;
    }

    /** What carrying out a decision did, per item. */
    public enum Outcome implements dev.punctual.expiry.Outcome {
        /** A new execution was started. */
        STARTED,
        /** A new execution was started under a restart name (a closed execution held the name). */
        RESTARTED,
        /** The execution was already pending (a duplicate record, or backfill meeting the stream). */
        ALREADY_PENDING,
        /** Stale executions were stopped (or there were none left to stop) and nothing started. */
        STOPPED,
        /** Nothing to do. */
        IGNORED;

        /** An execution holds the item after a start, whether this one started it or found it pending. */
        @Override
        public Effect effect() {
            return switch (this) {
                case STARTED, RESTARTED, ALREADY_PENDING -> Effect.PENDING;
                case STOPPED, IGNORED -> Effect.NONE;
            };
        }
    }

    /**
     * The result of {@link #apply}.
     *
     * @param execution the execution started or found pending, {@code null} when none
     * @param stopped the stale executions StopExecution succeeded for: those that were running and are now
     *     stopped, and those that had already ended, whose stop Step Functions also answers with success
     */
    public record Applied(Outcome outcome, String execution, List<String> stopped) implements Scheduled {
        public Applied {
            stopped = List.copyOf(stopped);
        }

        /** The execution started or found pending, if any. */
        @Override
        public Optional<String> executionName() {
            return Optional.ofNullable(execution);
        }
    }

    /** The execution to start and the stale ones to stop, as {@link ItemPlan#of} plans them. */
    @Override
    public ItemPlan plan(Decision decision, Instant now) {
        return ItemPlan.of(decision, now, cancelStale);
    }

    /** Nothing to prepare: each plan is carried out on its own, by {@link #apply(ItemPlan, ThrottleBackoff.Batch)}. */
    @Override
    public Step<ItemPlan> begin(List<ItemPlan> plans, ThrottleBackoff.Batch retries) {
        return plan -> apply(plan, retries);
    }

    /**
     * Carries out {@code plan}.
     *
     * @throws RuntimeException from {@link Executions} when a call fails; the record is to be retried
     * @throws RestartLimitException when {@link #MAX_RESTARTS} restart names are all held by closed executions
     */
    public Applied apply(ItemPlan plan) {
        return apply(plan, ThrottleBackoff.noRetries());
    }

    /**
     * Carries out {@code plan}, retrying throttled calls within {@code retries}' deadline.
     *
     * @throws ThrottledException when a call is still throttled at the deadline; the record is to be retried
     */
    public Applied apply(ItemPlan plan, ThrottleBackoff.Batch retries) {
        List<String> stopped = new ArrayList<>(plan.stops().size());
        for (String stale : plan.stops()) {
            if (retries.call(() -> executions.stop(stale)) == Executions.StopResult.STOPPED) {
                stopped.add(stale);
            }
        }
        Optional<ExecutionRequest> start = plan.start();
        if (start.isEmpty()) {
            return new Applied(plan.decision().verdict() == Decision.Verdict.CANCEL ? Outcome.STOPPED : Outcome.IGNORED,
                    null, stopped);
        }
        return start(start.get(), stopped, retries);
    }

    private Applied start(ExecutionRequest base, List<String> stopped, ThrottleBackoff.Batch retries) {
        ExecutionRequest request = base;
        for (int restarts = 0; restarts <= MAX_RESTARTS; restarts++) {
            ExecutionRequest attempt = request;
            if (retries.call(() -> executions.start(attempt.name(), attempt.input().toJson()))
                    == Executions.StartResult.STARTED) {
                return new Applied(restarts == 0 ? Outcome.STARTED : Outcome.RESTARTED, request.name(), stopped);
            }
            Executions.Holder holder = retries.call(() -> executions.describe(attempt.name()));
            switch (holder.status()) {
                case RUNNING, CONTINUED -> {
                    return new Applied(Outcome.ALREADY_PENDING, request.name(), stopped);
                }
                // Whether it expired the item or failed: this item at this TTL gets a new execution.
                case CLOSED, FAILED -> request = base.renamed(restartName(base.name(), holder.stopDate()));
                case MISSING -> throw new IllegalStateException("StartExecution said " + request.name()
                        + " exists but DescribeExecution does not find it; retry the record");
                default -> throw new IllegalStateException("unknown status " + holder.status());
            }
        }
        throw new RestartLimitException(base.name());
    }

    /** The name the chain {@code name} starts over under after a holder that stopped at {@code holderStopDate}. */
    private static String restartName(String name, Instant holderStopDate) {
        return ItemExecutionName.parse(name)
                .orElseThrow(() -> new IllegalStateException("'" + name + "' is not an item execution's name, which the rules give"))
                .restarted(holderStopDate).toString();
    }

    /** An item got the same TTL back more than {@link #MAX_RESTARTS} times while the names were held. */
    public static final class RestartLimitException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RestartLimitException(String name) {
            super("execution " + name + " and its " + MAX_RESTARTS + " restart names are all held by closed executions;"
                    + " the item was recreated with the same TTL too often within 90 days. Native TTL remains the backstop;"
                    + " give the item a TTL differing by a fraction of a second to schedule it");
        }
    }
}
