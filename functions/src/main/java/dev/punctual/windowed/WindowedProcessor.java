package dev.punctual.windowed;

import dev.punctual.expiry.BatchProcessor;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.Decision;
import dev.punctual.expiry.ExecutionInput;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ExpiryScheduler;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Windowed mode's batch: the same rules and log lines as per-item mode, but the batch's items are
 * scheduled together by a {@link BucketScheduler}, so one index write and one bucket start serve
 * many items. Order within an item does not matter here (entries only add, and each delete checks
 * the TTL it was indexed with), yet a failed record still fails that item's later records, so the
 * batch response reads as in per-item mode.
 */
public final class WindowedProcessor implements BatchProcessor {

    private final ExpiryRules rules;
    private final BucketScheduler scheduler;
    private final Clock clock;
    private final ChangeProcessor.Listener listener;
    private final AutoCloseable resources;

    /**
     * @param rules the TTL rules; windowed mode stops no executions, so they are built with cancellation off
     * @param resources closed with the processor (the scheduler's thread pool)
     */
    public WindowedProcessor(ExpiryRules rules, BucketScheduler scheduler, Clock clock, ChangeProcessor.Listener listener,
            AutoCloseable resources) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.resources = Objects.requireNonNull(resources, "resources");
    }

    @Override
    public List<String> process(List<StreamChange> changes, ThrottleBackoff.Batch retries) {
        Instant now = clock.instant();
        List<Decision> decisions = new ArrayList<>(changes.size());
        List<BucketScheduler.Request> requests = new ArrayList<>();
        for (StreamChange change : changes) {
            Decision decision = rules.decide(change, now);
            decisions.add(decision);
            decision.start().ifPresent(start -> requests.add(request(start.input())));
        }
        Map<BucketScheduler.Request, CompletableFuture<BucketScheduler.Placement>> placements = scheduler.schedule(requests, retries);

        List<String> failed = new ArrayList<>();
        Map<ItemIdentity, String> failedAt = new HashMap<>();
        for (int i = 0; i < changes.size(); i++) {
            StreamChange change = changes.get(i);
            Decision decision = decisions.get(i);
            ItemIdentity item = new ItemIdentity(change.table(), change.key());
            String earlierFailure = failedAt.get(item);
            if (earlierFailure != null) {
                failed.add(change.sequenceNumber());
                listener.skipped(change, earlierFailure);
                continue;
            }
            if (decision.start().isEmpty()) {
                ExpiryScheduler.Outcome outcome = decision.verdict() == Decision.Verdict.CANCEL
                        ? ExpiryScheduler.Outcome.STOPPED : ExpiryScheduler.Outcome.IGNORED;
                listener.decided(change, decision, new ExpiryScheduler.Applied(outcome, null, List.of()));
                continue;
            }
            try {
                BucketScheduler.Placement placement = placements.get(request(decision.start().get().input())).join();
                listener.decided(change, decision, new ExpiryScheduler.Applied(outcome(placement.outcome()),
                        placement.execution(), List.of()));
            } catch (CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException runtime ? runtime : e;
                failed.add(change.sequenceNumber());
                failedAt.put(item, change.sequenceNumber());
                listener.failed(change, decision, cause);
            }
        }
        return failed;
    }

    private static BucketScheduler.Request request(ExecutionInput input) {
        return new BucketScheduler.Request(input.table(), input.ttlAttribute(), input.key(), input.ttl(), input.expireAt());
    }

    private static ExpiryScheduler.Outcome outcome(BucketScheduler.Outcome outcome) {
        return switch (outcome) {
            case INDEXED -> ExpiryScheduler.Outcome.INDEXED;
            case DELETED -> ExpiryScheduler.Outcome.DELETED;
            case SUPERSEDED -> ExpiryScheduler.Outcome.SUPERSEDED;
        };
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing the windowed processor's resources failed", e);
        }
    }

    private record ItemIdentity(String table, ItemKey key) {
    }
}
