package dev.punctual.expiry;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The per-record rule of a stream batch, whatever is done per record: records of different items run
 * concurrently, records of the same item one after another in stream order, and once a record fails,
 * the item's later records in the batch are not tried and count as failed too, while other items go on.
 *
 * <p>Lambda retries from the lowest sequence number reported, so reporting only the first failure would
 * be enough for Lambda itself; naming every record left undone states the outcome exactly, for any
 * consumer of the response (the local runtime's poller among them), and never lets a later change of an
 * item overtake an earlier one that has to be retried.
 */
public final class ItemOrder {

    private ItemOrder() {
    }

    /** What became of one record. */
    public sealed interface Result<R> permits Done, Failed, Skipped {

        StreamChange change();
    }

    /** The step succeeded with {@code value}. */
    public record Done<R>(StreamChange change, R value) implements Result<R> {
    }

    /** The step failed with {@code error}: the record is to be retried. */
    public record Failed<R>(StreamChange change, RuntimeException error) implements Result<R> {
    }

    /** Not tried: the record {@code failedSequenceNumber} of the same item failed before it. */
    public record Skipped<R>(StreamChange change, String failedSequenceNumber) implements Result<R> {
    }

    /**
     * Runs {@code step} on every change under the rule above, on {@code executor}; blocks until all are
     * done. Returns one result per change, in stream order.
     */
    public static <R> List<Result<R>> run(List<StreamChange> changes, Function<StreamChange, R> step, Executor executor) {
        Map<ItemIdentity, List<StreamChange>> byItem = new LinkedHashMap<>();
        for (StreamChange change : changes) {
            byItem.computeIfAbsent(new ItemIdentity(change.table(), change.key()), item -> new ArrayList<>()).add(change);
        }
        List<CompletableFuture<List<Result<R>>>> runs = new ArrayList<>(byItem.size());
        for (List<StreamChange> itemChanges : byItem.values()) {
            runs.add(CompletableFuture.supplyAsync(() -> runItem(itemChanges, step), executor));
        }
        Map<StreamChange, Result<R>> byChange = new IdentityHashMap<>();
        for (CompletableFuture<List<Result<R>>> run : runs) {
            run.join().forEach(result -> byChange.put(result.change(), result));
        }
        List<Result<R>> inStreamOrder = new ArrayList<>(changes.size());
        for (StreamChange change : changes) {
            inStreamOrder.add(byChange.get(change));
        }
        return inStreamOrder;
    }

    private static <R> List<Result<R>> runItem(List<StreamChange> itemChanges, Function<StreamChange, R> step) {
        List<Result<R>> results = new ArrayList<>(itemChanges.size());
        String failedAt = null;
        for (StreamChange change : itemChanges) {
            if (failedAt != null) {
                results.add(new Skipped<>(change, failedAt));
                continue;
            }
            try {
                results.add(new Done<>(change, step.apply(change)));
            } catch (RuntimeException e) {
                failedAt = change.sequenceNumber();
                results.add(new Failed<>(change, e));
            }
        }
        return results;
    }

    private record ItemIdentity(String table, ItemKey key) {
    }
}
