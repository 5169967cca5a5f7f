package dev.punctual.expiry;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a batch of stream changes through the rules and the scheduler: changes to different items
 * concurrently (at most {@code maxConcurrency} at once), changes to the same item one after another
 * in stream order.
 *
 * <p>When a change fails, the later changes to the same item in the batch are not tried and are
 * reported failed too; changes to other items go on. Lambda retries from the lowest sequence
 * number reported, so reporting only the first failure would be enough for Lambda itself, but
 * naming every record left undone states the outcome exactly, for any consumer of the response
 * (the local runtime's poller among them), and never lets a later change of an item overtake an
 * earlier one that has to be retried.
 */
public final class ChangeProcessor implements BatchProcessor {

    /** Hears about every change, once: the place to log decisions and to count them. */
    public interface Listener {
        /** A change was decided and carried out. */
        void decided(StreamChange change, Decision decision, ExpiryScheduler.Applied applied);

        /** Carrying out a change failed; it is reported for retry. */
        void failed(StreamChange change, Decision decision, RuntimeException error);

        /** A change was not tried because an earlier change to the same item failed. */
        void skipped(StreamChange change, String failedSequenceNumber);
    }

    private final ExpiryRules rules;
    private final ExpiryScheduler scheduler;
    private final Clock clock;
    private final Listener listener;
    private final ExecutorService pool;

    /**
     * @param maxConcurrency changes carried out at once, so Step Functions calls in flight at once
     */
    public ChangeProcessor(ExpiryRules rules, ExpiryScheduler scheduler, Clock clock, Listener listener, int maxConcurrency) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be at least 1, got " + maxConcurrency);
        }
        this.pool = Executors.newFixedThreadPool(maxConcurrency, daemonThreads());
    }

    @Override
    public List<String> process(List<StreamChange> changes, ThrottleBackoff.Batch retries) {
        Map<ItemIdentity, List<StreamChange>> byItem = new LinkedHashMap<>();
        for (StreamChange change : changes) {
            byItem.computeIfAbsent(new ItemIdentity(change.table(), change.key()), item -> new ArrayList<>()).add(change);
        }
        List<CompletableFuture<List<StreamChange>>> runs = new ArrayList<>(byItem.size());
        for (List<StreamChange> itemChanges : byItem.values()) {
            runs.add(CompletableFuture.supplyAsync(() -> processItem(itemChanges, retries), pool));
        }
        Set<StreamChange> failed = Collections.newSetFromMap(new IdentityHashMap<>());
        for (CompletableFuture<List<StreamChange>> run : runs) {
            failed.addAll(run.join());
        }
        List<String> sequenceNumbers = new ArrayList<>(failed.size());
        for (StreamChange change : changes) {
            if (failed.contains(change)) {
                sequenceNumbers.add(change.sequenceNumber());
            }
        }
        return sequenceNumbers;
    }

    private List<StreamChange> processItem(List<StreamChange> itemChanges, ThrottleBackoff.Batch retries) {
        List<StreamChange> failed = new ArrayList<>();
        String failedAt = null;
        for (StreamChange change : itemChanges) {
            if (failedAt != null) {
                failed.add(change);
                listener.skipped(change, failedAt);
                continue;
            }
            Decision decision = rules.decide(change, clock.instant());
            try {
                listener.decided(change, decision, scheduler.apply(decision, retries));
            } catch (RuntimeException e) {
                failed.add(change);
                failedAt = change.sequenceNumber();
                listener.failed(change, decision, e);
            }
        }
        return failed;
    }

    @Override
    public void close() {
        pool.shutdown();
    }

    private record ItemIdentity(String table, ItemKey key) {
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "punctual-expiry-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
