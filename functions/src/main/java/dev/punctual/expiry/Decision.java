package dev.punctual.expiry;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the rules decided for one stream record: start an execution, stop stale ones, both (a
 * changed TTL), or nothing. Always carries the reason and a sentence for the log line.
 */
public final class Decision {

    /** The headline of a decision, as logged under {@code decision}. */
    public enum Verdict {
        /** Start an execution (and stop the stale ones listed, if any). */
        SCHEDULE,
        /** Only stop the stale executions listed. */
        CANCEL,
        /** Nothing to do. */
        IGNORE
    }

    private final Verdict verdict;
    private final Reason reason;
    private final String detail;
    private final ExecutionRequest start;
    private final List<String> stops;
    private final String ttl;

    private Decision(Verdict verdict, Reason reason, String detail, ExecutionRequest start, List<String> stops, String ttl) {
        this.verdict = Objects.requireNonNull(verdict, "verdict");
        this.reason = Objects.requireNonNull(reason, "reason");
        this.detail = Objects.requireNonNull(detail, "detail");
        this.start = start;
        this.stops = List.copyOf(stops);
        this.ttl = ttl;
    }

    /** Start {@code start}, after stopping {@code stops}. */
    public static Decision schedule(Reason reason, String detail, ExecutionRequest start, List<String> stops) {
        return new Decision(Verdict.SCHEDULE, reason, detail, Objects.requireNonNull(start, "start"), stops, start.input().ttl());
    }

    /** Stop {@code stops}; {@code ttl} is the TTL text the record now holds, if any, for the log. */
    public static Decision cancel(Reason reason, String detail, List<String> stops, String ttl) {
        if (stops.isEmpty()) {
            throw new IllegalArgumentException("a cancel stops at least one execution");
        }
        return new Decision(Verdict.CANCEL, reason, detail, null, stops, ttl);
    }

    /** Do nothing; {@code ttl} is the TTL text the record holds, if any, for the log. */
    public static Decision ignore(Reason reason, String detail, String ttl) {
        return new Decision(Verdict.IGNORE, reason, detail, null, List.of(), ttl);
    }

    public Verdict verdict() {
        return verdict;
    }

    public Reason reason() {
        return reason;
    }

    /** A sentence for the log line; never holds key values or image content. */
    public String detail() {
        return detail;
    }

    /** The execution to start, for {@link Verdict#SCHEDULE}. */
    public Optional<ExecutionRequest> start() {
        return Optional.ofNullable(start);
    }

    /** Names of executions made stale by this change, stopped before anything is started. */
    public List<String> stops() {
        return stops;
    }

    /** The TTL text the decision is about (the new one when there is one), for the log line. */
    public Optional<String> ttl() {
        return Optional.ofNullable(ttl);
    }

    @Override
    public String toString() {
        return verdict + "(" + reason + (start == null ? "" : ", start " + start.name())
                + (stops.isEmpty() ? "" : ", stop " + stops) + ")";
    }
}
