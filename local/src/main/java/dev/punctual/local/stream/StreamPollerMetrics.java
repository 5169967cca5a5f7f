package dev.punctual.local.stream;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the poller's work, for the benchmark and for {@code punctual local}'s status line.
 * The iterator age is, as in CloudWatch's {@code IteratorAge}, how old the last record read was when
 * it was read (0 once a shard is caught up). DynamoDB Local truncates record creation times to the
 * minute, so locally it is only meaningful above a minute.
 */
public final class StreamPollerMetrics {

    /** Also counts everything counted here (the poller's totals, for one table's counters); may be null. */
    private final StreamPollerMetrics total;

    private final LongAdder polls = new LongAdder();
    private final LongAdder recordsRead = new LongAdder();
    private final LongAdder recordsFiltered = new LongAdder();
    private final LongAdder recordsInvoked = new LongAdder();
    private final LongAdder recordsHandled = new LongAdder();
    private final LongAdder invocations = new LongAdder();
    private final LongAdder failedInvocations = new LongAdder();
    private final LongAdder recordsDeadLettered = new LongAdder();
    private final AtomicLong iteratorAgeMillis = new AtomicLong();

    /** Counters of their own. */
    public StreamPollerMetrics() {
        this(null);
    }

    /** One table's counters, each also added to {@code total}. */
    StreamPollerMetrics(StreamPollerMetrics total) {
        this.total = total;
    }

    /**
     * A consistent-enough copy of the counters.
     *
     * @param polls               GetRecords calls
     * @param recordsRead         stream records read
     * @param recordsFiltered     records dropped by the filter criteria (processed without invoking)
     * @param recordsInvoked      records handed to the function, counting retries again
     * @param recordsHandled      records the function returned without reporting them failed: done with
     * @param invocations         function invocations
     * @param failedInvocations   invocations that failed wholly or partly
     * @param recordsDeadLettered records given to the dead-letter store
     * @param iteratorAgeMillis   age of the last record read when it was read
     */
    public record Snapshot(long polls, long recordsRead, long recordsFiltered, long recordsInvoked, long recordsHandled,
                           long invocations,
                           long failedInvocations, long recordsDeadLettered, long iteratorAgeMillis) {

        /** Records read from the stream and not yet done with (filtered out, handled or dead-lettered). */
        public long backlog() {
            return Math.max(0, recordsRead - recordsFiltered - recordsHandled - recordsDeadLettered);
        }
    }

    /** The counters now. */
    public Snapshot snapshot() {
        return new Snapshot(polls.sum(), recordsRead.sum(), recordsFiltered.sum(), recordsInvoked.sum(), recordsHandled.sum(),
                invocations.sum(),
                failedInvocations.sum(), recordsDeadLettered.sum(), iteratorAgeMillis.get());
    }

    void read(int count) {
        polls.increment();
        recordsRead.add(count);
        if (total != null) {
            total.read(count);
        }
    }

    void filtered(int count) {
        recordsFiltered.add(count);
        if (total != null) {
            total.filtered(count);
        }
    }

    void invoked(int records) {
        invocations.increment();
        recordsInvoked.add(records);
        if (total != null) {
            total.invoked(records);
        }
    }

    void handled(int records) {
        recordsHandled.add(records);
        if (total != null) {
            total.handled(records);
        }
    }

    void invocationFailed() {
        failedInvocations.increment();
        if (total != null) {
            total.invocationFailed();
        }
    }

    void deadLettered(int count) {
        recordsDeadLettered.add(count);
        if (total != null) {
            total.deadLettered(count);
        }
    }

    void iteratorAge(long millis) {
        iteratorAgeMillis.set(Math.max(0, millis));
        if (total != null) {
            total.iteratorAge(millis);
        }
    }
}
