package dev.punctual.windowed;

import dev.punctual.expiry.Decision;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Plan;
import dev.punctual.expiry.Scheduled;
import dev.punctual.expiry.Scheduler;
import dev.punctual.expiry.Sleeper;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.expiry.TtlValue;
import dev.punctual.names.Digests;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Clock;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * The stream handler's half of windowed mode: indexes a batch's items under their seconds and makes
 * sure a bucket execution will delete each one at its TTL.
 *
 * <p><b>The seal protocol.</b> A bucket's execution <em>seals</em> its bucket before it reads it;
 * the handler <em>writes</em> an entry before it reads the seal. Both reads are strongly consistent,
 * so for every entry one of two things holds:
 * <ul>
 *   <li>the handler's seal read came before the seal: then so did its write, and the execution's
 *       read, which follows the seal, sees the entry;</li>
 *   <li>the handler sees the seal: the bucket may have missed the entry, so the handler places it
 *       in the finer bucket that holds its second (whose own seal it checks in turn); a sealed
 *       one-second bucket has read its entries (it does so when it arrives, up to
 *       {@link dev.punctual.statemachine.BucketWorkflow#WARM_LEAD} before its second), so the handler
 *       deletes the item itself, at its TTL.</li>
 * </ul>
 * Both may act on one entry; the delete is conditional, so the item is deleted once and the second
 * delete finds it gone. Items whose TTL has already passed are deleted at once, without the index.
 * A minute bucket's seal is its runner's {@link RunnerMark}, which moves through the minute one due
 * second at a time: the same protocol per second, with one more case for a second the runner has
 * already skipped as empty ({@link #placeInMinute}).
 *
 * <p>The execution the handler relies on is the bucket's <em>live generation</em>
 * ({@link BucketGenerations}): one that failed or was stopped is replaced by a successor that reads
 * the same entries, so no record fails because a bucket did. A bucket that no execution will read
 * again (its last generation succeeded, or every one failed) is treated as sealed.
 *
 * <p>Windowed mode's {@link Scheduler}: it takes each decision as the rules found it
 * ({@link Plan#asFound}) and reads the item's key and TTL from it. A batch's items are scheduled together
 * when it begins, so one index write and one bucket start serve many items; each record then reads where
 * its item went. Order within an item does not matter here (entries only add, and each delete checks the
 * TTL it was indexed with), yet {@link dev.punctual.expiry.ChangeProcessor} still fails an item's later
 * records after a failed one, so the batch response reads as in per-item mode. It stops nothing a change
 * left stale ({@link dev.punctual.statemachine.ExpiryMode#stopsStaleExecutions()}): a stale entry's
 * delete is conditional and finds the item changed. It has no per-item payload to limit either: what it
 * writes per item is an index entry of the key and TTL text, which its chunks split at
 * {@link #MAX_CHUNK_BYTES}.
 */
public final class BucketScheduler implements Scheduler<Plan> {

    /**
     * Bytes of entries one index item holds at most: DynamoDB allows 400 KB per item; the margin
     * covers attribute names and the estimate's slack.
     */
    static final int MAX_CHUNK_BYTES = 256 * 1024;
    /**
     * Reads of a minute runner's mark at most, while it says its read of what comes next is in flight;
     * after that the items go to one-second buckets, which is always safe.
     */
    static final int MARK_READS = 3;
    /** The pause between two such reads: the runner's read and write take a few milliseconds. */
    static final java.time.Duration MARK_REREAD_PAUSE = java.time.Duration.ofMillis(20);
    /** Bytes an entry adds beyond its key and TTL text, for the estimate. */
    private static final int ENTRY_OVERHEAD_BYTES = 32;

    /** One item to schedule: from a decision to schedule, in any mode. */
    public record Request(String table, String ttlAttribute, ItemKey key, String ttl, Instant expireAt) {
        public Request {
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(ttlAttribute, "ttlAttribute");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(ttl, "ttl");
            Objects.requireNonNull(expireAt, "expireAt");
        }

        /** The item a decision to schedule names, at its new TTL. */
        static Request of(Decision decision) {
            TtlValue ttl = decision.newTtl().orElseThrow();
            return new Request(decision.table(), decision.ttlAttribute(), decision.key(), ttl.text(), ttl.expireAt());
        }

        long due() {
            return expireAt.getEpochSecond();
        }
    }

    /** What scheduling one item did, windowed. */
    public enum Outcome implements dev.punctual.expiry.Outcome {
        /** Indexed; the named bucket execution deletes it at its TTL. */
        INDEXED,
        /** Its TTL had passed, or its one-second bucket was sealed: deleted by the handler, at its TTL. */
        DELETED,
        /** Its TTL had passed and the item had changed or was gone: nothing deleted. */
        SUPERSEDED;

        @Override
        public Effect effect() {
            return switch (this) {
                case INDEXED -> Effect.PENDING;
                case DELETED -> Effect.DELETED;
                case SUPERSEDED -> Effect.NONE;
            };
        }
    }

    /** Where an item ended up: the outcome and, for {@link Outcome#INDEXED}, the bucket's execution. */
    public record Placement(Outcome outcome, String execution) implements Scheduled {

        @Override
        public Optional<String> executionName() {
            return Optional.ofNullable(execution);
        }

        /** None: windowed mode stops no executions. */
        @Override
        public List<String> stopped() {
            return List.of();
        }
    }

    private final ScheduleIndex index;
    private final ItemDeleter deleter;
    private final BucketGenerations generations;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Executor pool;

    /**
     * @param buckets the {@code expire-bucket} state machine's executions
     * @param pool runs index writes, bucket starts and deletes concurrently
     */
    public BucketScheduler(ScheduleIndex index, ItemDeleter deleter, Executions buckets, Clock clock, Sleeper sleeper,
            Executor pool) {
        this.index = Objects.requireNonNull(index, "index");
        this.deleter = Objects.requireNonNull(deleter, "deleter");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.generations = new BucketGenerations(buckets, clock);
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    /** The decision as the rules found it: windowed mode adds nothing of its own to what a record means. */
    @Override
    public Plan plan(Decision decision, Instant now) {
        return Plan.asFound(decision);
    }

    /** Schedules the items of every decision to schedule, together; each record then reads its placement. */
    @Override
    public Step<Plan> begin(List<Plan> plans, ThrottleBackoff.Batch retries) {
        List<Request> requests = new ArrayList<>();
        for (Plan plan : plans) {
            if (plan.decision().verdict() == Decision.Verdict.SCHEDULE) {
                requests.add(Request.of(plan.decision()));
            }
        }
        Map<Request, CompletableFuture<Placement>> placements = schedule(requests, retries);
        return plan -> {
            if (plan.decision().verdict() != Decision.Verdict.SCHEDULE) {
                throw new IllegalStateException("windowed mode stops no executions, yet was asked to carry out " + plan.decision());
            }
            try {
                return placements.get(Request.of(plan.decision())).join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        };
    }

    /** As {@link #schedule(List, ThrottleBackoff.Batch)}, with no retries of throttled calls. */
    public Map<Request, CompletableFuture<Placement>> schedule(List<Request> requests) {
        return schedule(requests, ThrottleBackoff.noRetries());
    }

    /**
     * Schedules every request, retrying throttled Step Functions calls within {@code retries}'
     * deadline. Returns a completed future per distinct request: its placement, or the failure (the
     * record is to be retried; everything done so far is safe to repeat).
     */
    public Map<Request, CompletableFuture<Placement>> schedule(List<Request> requests, ThrottleBackoff.Batch retries) {
        Instant now = clock.instant();
        Map<Request, CompletableFuture<Placement>> results = new LinkedHashMap<>();
        Map<ChunkKey, List<Request>> bySecond = new LinkedHashMap<>();
        for (Request request : new LinkedHashSet<>(requests)) {
            if (request.expireAt().isAfter(now)) {
                bySecond.computeIfAbsent(new ChunkKey(request.table(), request.due()), k -> new ArrayList<>()).add(request);
            } else {
                results.put(request, CompletableFuture.supplyAsync(() -> deleteAtDue(request), pool));
            }
        }
        Map<ChunkKey, CompletableFuture<Void>> writes = writeChunks(bySecond);

        Map<Bucket, List<Request>> byBucket = new LinkedHashMap<>();
        bySecond.forEach((second, items) -> {
            BucketLevel level = BucketLevel.forLead(second.second() - now.getEpochSecond());
            byBucket.computeIfAbsent(Bucket.containing(second.table(), level, second.second()), b -> new ArrayList<>()).addAll(items);
        });
        byBucket.forEach((bucket, items) -> {
            // The items whose entries are written are placed together once every write has ended; an item
            // whose chunk could not be written fails alone (writeChunks), so it holds no other second back.
            CompletableFuture<?>[] ended = items.stream().map(r -> writes.get(new ChunkKey(r.table(), r.due())))
                    .distinct().map(write -> write.exceptionally(failure -> null)).toArray(CompletableFuture[]::new);
            CompletableFuture<Map<Request, Placement>> placed = CompletableFuture.allOf(ended).thenApplyAsync(ignored -> {
                List<Request> written = items.stream()
                        .filter(r -> !writes.get(new ChunkKey(r.table(), r.due())).isCompletedExceptionally()).toList();
                return written.isEmpty() ? Map.<Request, Placement>of() : place(bucket, written, retries);
            }, pool);
            for (Request item : items) {
                CompletableFuture<Void> write = writes.get(new ChunkKey(item.table(), item.due()));
                results.put(item, placed.thenCombine(write, (placements, ignored) -> placements.get(item)));
            }
        });
        for (CompletableFuture<Placement> result : results.values()) {
            result.exceptionally(failure -> null).join();
        }
        return results;
    }

    /**
     * Makes sure an execution of {@code bucket} will read it, then reads its seal; a sealed bucket, or
     * one no execution will read again, hands its items down a level (see the class comment). A minute
     * bucket's runner reads its seal one second at a time ({@link #placeInMinute}).
     */
    private Map<Request, Placement> place(Bucket bucket, List<Request> items, ThrottleBackoff.Batch retries) {
        if (bucket.level() == BucketLevel.MINUTE) {
            return placeInMinute(bucket, items, retries);
        }
        String ttlAttribute = items.get(0).ttlAttribute();
        BucketGenerations.Live live = generations.ensure(bucket, ttlAttribute, retries);
        boolean sealed = !live.willRead() || index.isSealed(bucket);
        Map<Request, Placement> placements = new LinkedHashMap<>();
        if (!sealed) {
            Placement indexed = new Placement(Outcome.INDEXED, live.execution());
            items.forEach(item -> placements.put(item, indexed));
            return placements;
        }
        if (bucket.level() == BucketLevel.SECOND) {
            items.forEach(item -> placements.put(item, deleteAtDue(item)));
            return placements;
        }
        return placeFiner(bucket, items, retries);
    }

    /**
     * Items of one minute. The handler starts the minute bucket planned for the earliest of them (or finds
     * its live generation, woken for whatever second another party planned it): its runner works the
     * seconds from {@link BucketInput#from} on, and the items due before that go to the minute's early
     * part ({@link MinutePart#EARLY}), which the handler starts for them. For each part it then reads how
     * far that part's runner has got ({@link RunnerMark}) and places the part's items
     * ({@link #placeWithRunner}). Whatever neither part takes goes to a one-second bucket.
     */
    private Map<Request, Placement> placeInMinute(Bucket minute, List<Request> items, ThrottleBackoff.Batch retries) {
        String ttlAttribute = items.get(0).ttlAttribute();
        long earliest = items.stream().mapToLong(Request::due).min().orElseThrow();
        BucketGenerations.Live main = generations.ensure(BucketInput.planned(minute, ttlAttribute, clock.instant(), earliest), retries);
        if (!main.willRead()) {
            return placeFiner(minute, items, retries);
        }
        Map<Request, Placement> placements = new LinkedHashMap<>();
        List<Request> handed = new ArrayList<>();
        List<Request> mainItems = items.stream().filter(item -> item.due() >= main.from()).toList();
        List<Request> earlyItems = items.stream().filter(item -> item.due() < main.from()).toList();
        if (!mainItems.isEmpty()) {
            placeWithRunner(minute, MinutePart.MAIN, main, mainItems, placements, handed);
        }
        if (!earlyItems.isEmpty()) {
            BucketGenerations.Live early = main.from() < minute.end()
                    ? generations.ensure(BucketInput.early(minute, ttlAttribute, clock.instant(), main.from()), retries)
                    : null;
            if (early != null && early.willRead()) {
                placeWithRunner(minute, MinutePart.EARLY, early, earlyItems, placements, handed);
            } else {
                handed.addAll(earlyItems);
            }
        }
        if (!handed.isEmpty()) {
            placements.putAll(placeFiner(minute, handed, retries));
        }
        return placements;
    }

    /**
     * Items of one part of a minute, whose live runner is {@code live}: the handler reads how far it has got
     * ({@link RunnerMark}); the runner raises the mark <em>before</em> it reads, the handler wrote its entry
     * <em>before</em> it reads the mark, both strongly consistent. For each item:
     * <ul>
     *   <li>the runner has not begun: its first read comes after this write and finds the entry, so the
     *       item is the runner's, if the runner wakes a second before it or earlier;</li>
     *   <li>its second is at or below the mark: sealed (and at most a second away): the handler deletes
     *       the item itself, at its TTL;</li>
     *   <li>its second is at or after the next due second the runner's last read found: the runner's
     *       next mark comes after this read, so the read that follows it finds the entry;</li>
     *   <li>otherwise (the gap the runner skipped as empty, or its read of what comes next still in
     *       flight, after {@link #MARK_READS} reads): {@code handed}, for a one-second bucket.</li>
     * </ul>
     */
    private void placeWithRunner(Bucket minute, MinutePart part, BucketGenerations.Live live, List<Request> items,
            Map<Request, Placement> placements, List<Request> handed) {
        RunnerMark mark = index.runnerMark(minute, part);
        for (int read = 1; read < MARK_READS && mark.started() && !mark.nextKnown(); read++) {
            // The runner is between raising its mark and recording what comes next: milliseconds. A later
            // read still follows this handler's write, so it answers as well, and usually spares a fallback.
            pauseBeforeReadingTheMarkAgain();
            mark = index.runnerMark(minute, part);
        }
        Placement indexed = new Placement(Outcome.INDEXED, live.execution());
        for (Request item : items) {
            long second = item.due();
            if (!mark.started()) {
                if (Instant.ofEpochSecond(second).minus(BucketWorkflow.WARM_LEAD).isBefore(live.wakeAt())) {
                    handed.add(item);
                } else {
                    placements.put(item, indexed);
                }
            } else if (second <= mark.through()) {
                placements.put(item, deleteAtDue(item));
            } else if (mark.nextKnown() && second >= mark.next()) {
                placements.put(item, indexed);
            } else {
                handed.add(item);
            }
        }
    }

    private void pauseBeforeReadingTheMarkAgain() {
        try {
            sleeper.sleep(MARK_REREAD_PAUSE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading a minute runner's mark", e);
        }
    }

    /** Hands items to the finer buckets holding their seconds. */
    private Map<Request, Placement> placeFiner(Bucket bucket, List<Request> items, ThrottleBackoff.Batch retries) {
        Map<Request, Placement> placements = new LinkedHashMap<>();
        Map<Bucket, List<Request>> finer = new LinkedHashMap<>();
        items.forEach(item -> finer.computeIfAbsent(bucket.finerContaining(item.due()), b -> new ArrayList<>()).add(item));
        finer.forEach((child, childItems) -> placements.putAll(place(child, childItems, retries)));
        return placements;
    }

    /**
     * Writes the batch's chunks, {@link ScheduleIndex#CHUNKS_PER_WRITE} to a request, the requests
     * concurrently: a batch whose items fall in a hundred different seconds makes four requests, not a
     * hundred. Returns each second's write, which ends once every request holding one of its chunks has.
     * A request that fails is written again one chunk at a time, so only the seconds whose own chunk
     * cannot be written fail; rewriting a chunk changes nothing (it is named by its content).
     */
    private Map<ChunkKey, CompletableFuture<Void>> writeChunks(Map<ChunkKey, List<Request>> bySecond) {
        List<IndexChunk> chunks = new ArrayList<>();
        bySecond.forEach((second, items) -> chunks.addAll(chunksOf(second, items)));
        Map<ChunkKey, List<CompletableFuture<Void>>> requestsBySecond = new LinkedHashMap<>();
        for (int from = 0; from < chunks.size(); from += ScheduleIndex.CHUNKS_PER_WRITE) {
            List<IndexChunk> request = chunks.subList(from, Math.min(chunks.size(), from + ScheduleIndex.CHUNKS_PER_WRITE));
            CompletableFuture<Map<ChunkKey, Throwable>> written = CompletableFuture.supplyAsync(() -> writeOrSayWhichFailed(request), pool);
            for (IndexChunk chunk : request) {
                ChunkKey second = new ChunkKey(chunk.table(), chunk.second());
                requestsBySecond.computeIfAbsent(second, k -> new ArrayList<>()).add(written.thenAccept(failed -> {
                    if (failed.containsKey(second)) {
                        throw new CompletionException(failed.get(second));
                    }
                }));
            }
        }
        Map<ChunkKey, CompletableFuture<Void>> writes = new LinkedHashMap<>();
        requestsBySecond.forEach((second, requests) -> writes.put(second, CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new))));
        return writes;
    }

    /** Writes {@code request}'s chunks together; if that fails, one at a time. Answers the seconds not written, with why. */
    private Map<ChunkKey, Throwable> writeOrSayWhichFailed(List<IndexChunk> request) {
        try {
            index.putChunks(request);
            return Map.of();
        } catch (RuntimeException together) {
            Map<ChunkKey, Throwable> failed = new LinkedHashMap<>();
            for (IndexChunk chunk : request) {
                try {
                    index.putChunk(chunk.table(), chunk.second(), chunk.digest(), chunk.entries());
                } catch (RuntimeException alone) {
                    failed.putIfAbsent(new ChunkKey(chunk.table(), chunk.second()), alone);
                }
            }
            return failed;
        }
    }

    /** One second's entries of the batch, in chunks of at most {@link #MAX_CHUNK_BYTES}, each named by its content. */
    private static List<IndexChunk> chunksOf(ChunkKey second, List<Request> items) {
        List<Map.Entry<ItemKey, String>> sorted = new ArrayList<>(new LinkedHashSet<>(
                items.stream().map(r -> (Map.Entry<ItemKey, String>) new AbstractMap.SimpleImmutableEntry<>(r.key(), r.ttl())).toList()));
        sorted.sort(Comparator.comparing((Map.Entry<ItemKey, String> e) -> e.getKey().toDynamoJson()).thenComparing(Map.Entry::getValue));
        List<IndexChunk> chunks = new ArrayList<>();
        List<Map.Entry<ItemKey, String>> chunk = new ArrayList<>();
        int bytes = 0;
        for (Map.Entry<ItemKey, String> item : sorted) {
            int size = item.getKey().toDynamoJson().length() + item.getValue().length() + ENTRY_OVERHEAD_BYTES;
            if (!chunk.isEmpty() && bytes + size > MAX_CHUNK_BYTES) {
                chunks.add(chunk(second, chunk));
                chunk = new ArrayList<>();
                bytes = 0;
            }
            chunk.add(item);
            bytes += size;
        }
        if (!chunk.isEmpty()) {
            chunks.add(chunk(second, chunk));
        }
        return chunks;
    }

    private static IndexChunk chunk(ChunkKey second, List<Map.Entry<ItemKey, String>> entries) {
        return new IndexChunk(second.table(), second.second(), Digests.chunkDigest(second.table(), second.second(), entries),
                entries.stream().map(e -> new IndexEntry(e.getKey(), e.getValue(), second.second())).toList());
    }

    /** Deletes an item whose second has come, waiting out any part of it still ahead: never early. */
    private Placement deleteAtDue(Request request) {
        sleeper.sleepUntil(clock, request.expireAt());
        return switch (deleter.deleteIfUnchanged(request.table(), request.key(), request.ttlAttribute(), request.ttl())) {
            case DELETED -> new Placement(Outcome.DELETED, null);
            case SUPERSEDED -> new Placement(Outcome.SUPERSEDED, null);
        };
    }

    private record ChunkKey(String table, long second) {
    }
}
