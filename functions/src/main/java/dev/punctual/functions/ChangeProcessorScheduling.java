package dev.punctual.functions;

import dev.punctual.backfill.ItemOutcome;
import dev.punctual.backfill.ModeScheduling;
import dev.punctual.backfill.PacedExecutions;
import dev.punctual.backfill.RateLimiter;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.Plan;
import dev.punctual.expiry.Scheduled;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.ExpiryMode;
import java.time.Clock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Backfill's one way into the table's mode: each page goes through the stream handler's own
 * {@link ChangeProcessor} with the mode's {@link dev.punctual.expiry.Scheduler} ({@link FunctionModes}),
 * so the mode's rules, names, index and bucket generations apply to an existing item exactly as to a
 * new one. What became of each item is the mode's own answer ({@link dev.punctual.expiry.Outcome#effect()}),
 * so nothing here knows which mode it is.
 *
 * <p>A processor is built per page: its StartExecution calls are paced by the page's
 * {@link RateLimiter}, and it holds its worker threads only while the page runs.
 */
public final class ChangeProcessorScheduling implements ModeScheduling {

    private final FunctionParts parts;

    /**
     * @param parts the backfill function's: the mode, its state machine and schedule table as the stream
     *     handler reads them, its executions, DynamoDB client, clock and sleeper
     * @throws IllegalArgumentException naming an environment variable the mode needs and is not set
     */
    public ChangeProcessorScheduling(FunctionParts parts) {
        this.parts = Objects.requireNonNull(parts, "parts");
        // Built once now, as the stream handler builds its own, so a function missing what its mode needs
        // (windowed: the schedule table) fails at start-up rather than on its first page.
        FunctionModes.scheduler(parts.settings().mode(), parts, Runnable::run);
    }

    @Override
    public ExpiryMode mode() {
        return parts.settings().mode();
    }

    @Override
    public List<ItemOutcome> schedule(String ttlAttribute, List<StreamChange> items, RateLimiter starts,
            ThrottleBackoff.Batch retries) {
        ExpirySettings settings = parts.settings();
        Outcomes outcomes = new Outcomes(parts.clock());
        ExecutorService pool = Executors.newFixedThreadPool(settings.maxConcurrency(), DaemonThreads.named("punctual-backfill"));
        try {
            ChangeProcessor processor = new ChangeProcessor(new ExpiryRules(ttlAttribute),
                    FunctionModes.scheduler(settings.mode(), parts, new PacedExecutions(parts.executions(), starts), pool),
                    parts.clock(), outcomes, pool);
            processor.process(items, retries);
        } finally {
            pool.shutdown();
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
        public synchronized void decided(StreamChange change, Plan plan, Scheduled scheduled) {
            ItemOutcome.Kind kind = switch (scheduled.outcome().effect()) {
                case PENDING -> dueNow(plan) ? ItemOutcome.Kind.DELETED_NOW : ItemOutcome.Kind.SCHEDULED;
                case DELETED -> ItemOutcome.Kind.DELETED_NOW;
                case NONE -> ItemOutcome.Kind.SKIPPED;
            };
            byItem.put(change, ItemOutcome.of(kind, plan.decision().reason(), plan.decision().detail()));
        }

        @Override
        public synchronized void failed(StreamChange change, Plan plan, RuntimeException error) {
            byItem.put(change, ItemOutcome.failed(plan.decision().reason(), error));
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

        /** An execution holding an item whose TTL has passed deletes it at once, as in the stream handler. */
        private boolean dueNow(Plan plan) {
            return plan.decision().newTtl().map(ttl -> !ttl.expireAt().isAfter(clock.instant())).orElse(false);
        }
    }
}
