package dev.punctual.expiry;

import static dev.punctual.statemachine.ExpiryMetricNames.DIMENSION_REASON;
import static dev.punctual.statemachine.ExpiryMetricNames.DIMENSION_TABLE;

import dev.punctual.statemachine.ExpiryMetricNames;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * Turns each decided stream record into metrics ({@link ExpiryMetricNames}): how late Punctual's own
 * deletes were, how often native TTL won instead, and what the records led to.
 *
 * <p>The lag is the moment this handler read Punctual's delete ({@link Reason#REMOVED_AT_EXPIRY}) minus
 * the item's TTL. The record reaches the handler only after the stream and the event source mapping
 * delivered it, so the figure is an upper bound on how late the delete itself happened.
 */
public final class ExpiryMetrics implements ChangeProcessor.Listener {

    private final Clock clock;
    private final MetricSink sink;

    public ExpiryMetrics(Clock clock, MetricSink sink) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    @Override
    public void decided(StreamChange change, Plan plan, Scheduled scheduled) {
        Decision decision = plan.decision();
        Map<String, String> table = Map.of(DIMENSION_TABLE, change.table());
        if (decision.reason() == Reason.REMOVED_AT_EXPIRY) {
            decision.ttl().ifPresent(ttl -> {
                sink.add(ExpiryMetricNames.EXPIRY_LAG, lagMillis(ttl), MetricSink.Unit.MILLISECONDS, table);
                sink.add(ExpiryMetricNames.EXPIRED_BY_PUNCTUAL, 1, MetricSink.Unit.COUNT, table);
            });
        } else if (decision.reason() == Reason.REMOVED_BY_TTL_SERVICE) {
            sink.add(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL, 1, MetricSink.Unit.COUNT, table);
        }
        if (!plan.stops().isEmpty()) {
            sink.add(ExpiryMetricNames.RECORDS_SUPERSEDED, 1, MetricSink.Unit.COUNT, table);
        }
        if (decision.verdict() == Decision.Verdict.SCHEDULE) {
            sink.add(ExpiryMetricNames.RECORDS_SCHEDULED, 1, MetricSink.Unit.COUNT, table);
        } else if (decision.verdict() == Decision.Verdict.IGNORE) {
            sink.add(ExpiryMetricNames.RECORDS_IGNORED, 1, MetricSink.Unit.COUNT,
                    Map.of(DIMENSION_TABLE, change.table(), DIMENSION_REASON, decision.reason().name()));
        }
    }

    @Override
    public void failed(StreamChange change, Plan plan, RuntimeException error) {
        sink.add(ExpiryMetricNames.START_EXECUTION_FAILURES, 1, MetricSink.Unit.COUNT,
                Map.of(DIMENSION_TABLE, change.table()));
    }

    @Override
    public void skipped(StreamChange change, String failedSequenceNumber) {
        // Not tried, so nothing happened to count; the failure before it was counted once.
    }

    /** Milliseconds from the TTL (epoch seconds, possibly fractional) to now; negative never happens by rule. */
    private long lagMillis(String ttlSeconds) {
        long ttlMillis = new BigDecimal(ttlSeconds).movePointRight(3).longValue();
        return clock.millis() - ttlMillis;
    }
}
