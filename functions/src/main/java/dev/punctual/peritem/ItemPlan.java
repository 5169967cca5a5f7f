package dev.punctual.peritem;

import dev.punctual.expiry.Decision;
import dev.punctual.expiry.Plan;
import dev.punctual.expiry.Reason;
import dev.punctual.expiry.TtlValue;
import dev.punctual.names.ItemExecutionName;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.statemachine.StepFunctionsLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What per-item mode makes of one decision: the {@code expire-item} execution to start (its name and
 * input), the stale executions to stop first, and the decision as per-item mode carries it out. Per
 * item the log line says more than the rules found: how many horizon hops the wait takes, which stale
 * execution is stopped (a stop turns a decision to ignore into a {@link Decision.Verdict#CANCEL}), and
 * that an input over Step Functions' payload limit is not scheduled.
 */
public final class ItemPlan implements Plan {

    private static final String STOPPING_OLD = "; stopping the execution for the old TTL";

    private final Decision decision;
    private final ExecutionRequest start;
    private final List<String> stops;

    /**
     * @param decision the decision as per-item mode carries it out
     * @param start the execution to start, {@code null} when none
     * @param stops the stale executions to stop before anything is started
     */
    public ItemPlan(Decision decision, ExecutionRequest start, List<String> stops) {
        this.decision = Objects.requireNonNull(decision, "decision");
        this.start = start;
        this.stops = List.copyOf(stops);
    }

    /**
     * Per-item mode's plan for {@code found}, the rules' decision at {@code now}.
     *
     * @param cancelStale whether executions made stale by a TTL change or an early delete are stopped
     * @throws IllegalArgumentException for a decision already restated as a cancel: plans start from
     *     what the rules found, which never cancels
     */
    public static ItemPlan of(Decision found, Instant now, boolean cancelStale) {
        List<String> stops = cancelStale
                ? found.oldTtl().map(old -> StaleExecutions.of(found.table(), found.key(), old, now)).orElse(List.of())
                : List.of();
        return switch (found.verdict()) {
            case SCHEDULE -> schedule(found, now, stops);
            case IGNORE -> stops.isEmpty() ? new ItemPlan(found, null, stops) : new ItemPlan(cancel(found), null, stops);
            case CANCEL -> throw new IllegalArgumentException("a plan starts from the rules' decision, which never cancels: " + found);
        };
    }

    private static ItemPlan schedule(Decision found, Instant now, List<String> stops) {
        TtlValue ttl = found.newTtl().orElseThrow();
        String name = ItemExecutionName.first(found.table(), found.key(), ttl).toString();
        long hops = horizonHops(ttl.expireAt(), now);
        ExecutionInput input = new ExecutionInput(found.table(), found.key(), found.ttlAttribute(), ttl.text(),
                ttl.expireAt(), hops, name);
        // Room for the longest name a restart can give, so a restart never crosses the limit.
        int size = input.sizeInBytes() + ItemExecutionName.RESTART_SUFFIX_LENGTH;
        if (size > StepFunctionsLimits.MAX_PAYLOAD_BYTES) {
            String detail = "execution input of " + size + " bytes exceeds Step Functions' " + StepFunctionsLimits.MAX_PAYLOAD_BYTES
                    + "; not scheduled";
            return stops.isEmpty()
                    ? new ItemPlan(found.restated(Decision.Verdict.IGNORE, Reason.INPUT_TOO_LARGE, detail), null, stops)
                    : new ItemPlan(found.restated(Decision.Verdict.CANCEL, Reason.INPUT_TOO_LARGE, detail + STOPPING_OLD), null, stops);
        }
        String detail = found.detail() + (hops > 0 ? " after " + hops + " horizon hop" + (hops == 1 ? "" : "s") : "")
                + (stops.isEmpty() ? "" : STOPPING_OLD);
        return new ItemPlan(found.restated(Decision.Verdict.SCHEDULE, found.reason(), detail), new ExecutionRequest(name, input), stops);
    }

    /** An ignored change that left an execution stale, as the stop it now is: why the old TTL's execution goes. */
    private static Decision cancel(Decision found) {
        String old = found.oldTtl().orElseThrow().text();
        return switch (found.reason()) {
            case REMOVED -> found.restated(Decision.Verdict.CANCEL, Reason.ITEM_DELETED, "deleted before its TTL; stopping its execution");
            case NO_TTL -> found.restated(Decision.Verdict.CANCEL, Reason.TTL_REMOVED, "TTL removed" + STOPPING_OLD + " " + old);
            default -> found.restated(Decision.Verdict.CANCEL, Reason.TTL_NO_LONGER_VALID, found.detail() + STOPPING_OLD + " " + old);
        };
    }

    /**
     * Whole horizons to hop before the final wait: none when the wait fits one horizon, else as many
     * as leave a final wait shorter than a horizon.
     */
    static long horizonHops(Instant expireAt, Instant now) {
        Duration wait = Duration.between(now, expireAt);
        return wait.compareTo(ExpiryWorkflow.HORIZON) > 0 ? wait.dividedBy(ExpiryWorkflow.HORIZON) : 0;
    }

    @Override
    public Decision decision() {
        return decision;
    }

    /** The execution to start, if any. */
    public Optional<ExecutionRequest> start() {
        return Optional.ofNullable(start);
    }

    @Override
    public Optional<String> execution() {
        return start().map(ExecutionRequest::name);
    }

    /** Names of the stale executions to stop, before anything is started. */
    @Override
    public List<String> stops() {
        return stops;
    }

    /** The verdict, its reason and the executions' names: never the input, which holds the key. */
    @Override
    public String toString() {
        return decision.verdict() + "(" + decision.reason() + (start == null ? "" : ", start " + start.name())
                + (stops.isEmpty() ? "" : ", stop " + stops) + ")";
    }
}
