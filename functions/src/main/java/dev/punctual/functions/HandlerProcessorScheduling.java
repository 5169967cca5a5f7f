package dev.punctual.functions;

import dev.punctual.backfill.ItemOutcome;
import dev.punctual.backfill.ModeScheduling;
import dev.punctual.backfill.PacedExecutions;
import dev.punctual.backfill.RateLimiter;
import dev.punctual.expiry.BatchProcessor;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.Decision;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryScheduler;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.ExpiryMode;
import java.time.Clock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Backfill's one way into the table's mode: each page goes through the very processor the stream
 * handler builds for the mode ({@link ExpiryStreamHandler#processorFor}), with the mode's rules,
 * names and index, and this class turns what the processor reports per record into one
 * {@link ItemOutcome} per item. When the mode becomes a type of its own that schedules a batch and
 * reports per-item outcomes, this class is the one place to change.
 *
 * <p>A processor is built per page: its Step Functions calls are paced by the page's
 * {@link RateLimiter}, and it holds its worker threads only while the page runs.
 */
public final class HandlerProcessorScheduling implements ModeScheduling {

    private final ExpirySettings settings;
    private final Executions executions;
    private final DynamoDbClient dynamoDb;
    private final Clock clock;

    /**
     * @param settings the mode, its state machine and schedule table, as the stream handler reads them
     * @param executions the mode's state machine ({@code expire-item}, or {@code expire-bucket} when windowed)
     * @param dynamoDb for windowed mode's index and the deletes of items whose TTL has passed
     */
    public HandlerProcessorScheduling(ExpirySettings settings, Executions executions, DynamoDbClient dynamoDb, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.executions = Objects.requireNonNull(executions, "executions");
        this.dynamoDb = dynamoDb;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public ExpiryMode mode() {
        return settings.mode();
    }

    @Override
    public List<ItemOutcome> schedule(String ttlAttribute, List<StreamChange> items, RateLimiter starts,
            ThrottleBackoff.Batch retries) {
        Outcomes outcomes = new Outcomes(clock);
        try (BatchProcessor processor = ExpiryStreamHandler.processorFor(settings, ttlAttribute,
                new PacedExecutions(executions, starts), dynamoDb, clock, outcomes)) {
            processor.process(items, retries);
        }
        List<ItemOutcome> result = new ArrayList<>(items.size());
        for (StreamChange item : items) {
            result.add(outcomes.of(item));
        }
        return result;
    }

    /** Hears the processor's per-record reports and keeps one outcome per item. */
    private static final class Outcomes implements ChangeProcessor.Listener {
        private final Clock clock;
        private final Map<StreamChange, ItemOutcome> byItem = new IdentityHashMap<>();

        Outcomes(Clock clock) {
            this.clock = clock;
        }

        @Override
        public synchronized void decided(StreamChange change, Decision decision, ExpiryScheduler.Applied applied) {
            ItemOutcome.Kind kind = switch (applied.outcome()) {
                case STARTED, RESTARTED, ALREADY_PENDING -> dueNow(decision) ? ItemOutcome.Kind.DELETED_NOW
                        : ItemOutcome.Kind.SCHEDULED;
                case INDEXED -> ItemOutcome.Kind.SCHEDULED;
                case DELETED -> ItemOutcome.Kind.DELETED_NOW;
                // SUPERSEDED: the TTL had passed and the item changed or went between the Scan and the delete.
                case SUPERSEDED, IGNORED, STOPPED -> ItemOutcome.Kind.SKIPPED;
            };
            byItem.put(change, ItemOutcome.of(kind, decision.reason(), decision.detail()));
        }

        @Override
        public synchronized void failed(StreamChange change, Decision decision, RuntimeException error) {
            byItem.put(change, ItemOutcome.failed(decision.reason(), error));
        }

        @Override
        public synchronized void skipped(StreamChange change, String failedSequenceNumber) {
            byItem.put(change, ItemOutcome.failed(null, new IllegalStateException(
                    "not tried: item at position " + failedSequenceNumber + " of the page failed first")));
        }

        synchronized ItemOutcome of(StreamChange item) {
            ItemOutcome outcome = byItem.get(item);
            if (outcome == null) {
                return ItemOutcome.failed(null, new IllegalStateException("the mode's processor reported nothing for"
                        + " the item at position " + item.sequenceNumber() + " of the page"));
            }
            return outcome;
        }

        /** Per item, a TTL already past starts an execution that deletes at once, as in the stream handler. */
        private boolean dueNow(Decision decision) {
            return decision.start().map(start -> !start.input().expireAt().isAfter(clock.instant())).orElse(false);
        }
    }
}
