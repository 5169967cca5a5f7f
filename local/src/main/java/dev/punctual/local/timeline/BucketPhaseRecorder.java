package dev.punctual.local.timeline;

import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketPhases;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The local runtime's ear on its bucket function: when each one-second bucket of a tracked table was
 * invoked, woke at its second, sealed and read, for the trial's timeline of where a second's time goes
 * ({@code bench --json}). Only tables asked for are tracked, as in the
 * {@link dev.punctual.local.billing.DeletionLedger}, so a long-running runtime keeps nothing; for each
 * bucket the first report of each phase counts, so a retried invocation does not hide how the first
 * one went. Recording is a map lookup and a compare-and-set: the worker it listens to is the work
 * being measured.
 */
public final class BucketPhaseRecorder implements BucketPhases {

    /**
     * What one bucket reported; a phase not reached is {@code null}.
     *
     * @param items distinct items the bucket read, or -1 before it read
     */
    public record Phases(Instant invoked, Instant woke, Instant sealed, Instant read, int items) {
    }

    private final Map<String, Map<Long, Slot>> tracked = new ConcurrentHashMap<>();

    /** Starts recording the buckets of {@code table}. */
    public void track(String table) {
        tracked.putIfAbsent(table, new ConcurrentHashMap<>());
    }

    /** Stops recording and forgets {@code table}. */
    public void forget(String table) {
        tracked.remove(table);
    }

    /** What the one-second bucket of {@code table} at {@code second} reported, if it reported anything. */
    public Optional<Phases> phases(String table, long second) {
        Map<Long, Slot> buckets = tracked.get(table);
        Slot slot = buckets == null ? null : buckets.get(second);
        return slot == null ? Optional.empty() : Optional.of(slot.phases());
    }

    @Override
    public void invoked(Bucket bucket, Instant at) {
        slot(bucket).ifPresent(slot -> slot.invoked.compareAndSet(null, at));
    }

    @Override
    public void woke(Bucket bucket, Instant at) {
        slot(bucket).ifPresent(slot -> slot.woke.compareAndSet(null, at));
    }

    @Override
    public void sealed(Bucket bucket, Instant at) {
        slot(bucket).ifPresent(slot -> slot.sealed.compareAndSet(null, at));
    }

    @Override
    public void read(Bucket bucket, int items, Instant at) {
        slot(bucket).ifPresent(slot -> slot.read.compareAndSet(null, new Read(at, items)));
    }

    private Optional<Slot> slot(Bucket bucket) {
        Map<Long, Slot> buckets = tracked.get(bucket.table());
        return buckets == null ? Optional.empty() : Optional.of(buckets.computeIfAbsent(bucket.start(), second -> new Slot()));
    }

    private static final class Slot {
        final AtomicReference<Instant> invoked = new AtomicReference<>();
        final AtomicReference<Instant> woke = new AtomicReference<>();
        final AtomicReference<Instant> sealed = new AtomicReference<>();
        final AtomicReference<Read> read = new AtomicReference<>();

        Phases phases() {
            Read done = read.get();
            return new Phases(invoked.get(), woke.get(), sealed.get(), done == null ? null : done.at(),
                    done == null ? -1 : done.items());
        }
    }

    private record Read(Instant at, int items) {
    }
}
