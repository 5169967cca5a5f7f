package dev.punctual.windowed;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** In-memory stand-ins for windowed mode's collaborators, each as strict as the real one where it matters. */
final class WindowedFakes {

    private WindowedFakes() {
    }

    /** A clock tests move; as a {@link Sleeper} it moves itself instead of sleeping. */
    static final class ManualClock extends Clock implements Sleeper {
        private Instant now;

        ManualClock(Instant start) {
            this.now = start;
        }

        synchronized void set(Instant instant) {
            now = instant;
        }

        synchronized void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public synchronized Instant instant() {
            return now;
        }

        @Override
        public void sleep(Duration duration) {
            advance(duration);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /**
     * The schedule index, linearizable (every call synchronized, as DynamoDB's strongly consistent
     * single-partition operations are), with a hook that runs just before a chosen call so a test
     * can put another party's steps at an exact point.
     */
    static final class Index implements ScheduleIndex {
        private final Map<String, Map<String, List<IndexEntry>>> chunks = new HashMap<>();
        private final Set<Bucket> sealed = new HashSet<>();
        private final Map<String, Runnable> before = new HashMap<>();
        int chunkWrites;
        /** Every chunk written, in write order. */
        final List<List<IndexEntry>> writtenChunks = new ArrayList<>();

        /** Runs {@code action} once, just before the next call of {@code operation}. */
        void beforeNext(String operation, Runnable action) {
            before.put(operation, action);
        }

        private void hook(String operation) {
            Runnable action;
            synchronized (this) {
                action = before.remove(operation);
            }
            if (action != null) {
                action.run();
            }
        }

        @Override
        public void putChunk(String table, long second, String digest, Collection<IndexEntry> entries) {
            hook("putChunk");
            synchronized (this) {
                chunkWrites++;
                writtenChunks.add(List.copyOf(entries));
                chunks.computeIfAbsent(table + "|" + BucketLevel.MINUTE.startOf(second), p -> new TreeMap<>())
                        .put(second + "|" + digest, List.copyOf(entries));
            }
        }

        @Override
        public List<IndexEntry> entriesDue(String table, long second) {
            hook("entriesDue");
            synchronized (this) {
                List<IndexEntry> due = new ArrayList<>();
                chunks.getOrDefault(table + "|" + BucketLevel.MINUTE.startOf(second), Map.of()).forEach((sort, entries) -> {
                    if (sort.startsWith(second + "|")) {
                        due.addAll(entries);
                    }
                });
                return due;
            }
        }

        @Override
        public synchronized SortedSet<Long> dueSeconds(String table, long minuteStart) {
            SortedSet<Long> seconds = new TreeSet<>();
            chunks.getOrDefault(table + "|" + minuteStart, Map.of()).keySet()
                    .forEach(sort -> seconds.add(Long.parseLong(sort.substring(0, sort.indexOf('|')))));
            return seconds;
        }

        @Override
        public synchronized boolean hasEntries(String table, long minuteStart) {
            return !chunks.getOrDefault(table + "|" + minuteStart, Map.of()).isEmpty();
        }

        @Override
        public void seal(Bucket bucket, Instant at) {
            hook("seal");
            synchronized (this) {
                sealed.add(bucket);
            }
        }

        @Override
        public boolean isSealed(Bucket bucket) {
            hook("isSealed");
            synchronized (this) {
                return sealed.contains(bucket);
            }
        }

        synchronized int chunkCount() {
            return chunks.values().stream().mapToInt(Map::size).sum();
        }
    }

    /** A table of items (key → TTL text) with DynamoDB's conditional delete, recording each delete's time. */
    static final class Table implements ItemDeleter {
        private final Map<ItemKey, String> items = new HashMap<>();
        private final Clock clock;
        final List<Deleted> deletes = new ArrayList<>();

        record Deleted(ItemKey key, String ttl, Instant at) {
        }

        Table(Clock clock) {
            this.clock = clock;
        }

        synchronized void put(ItemKey key, String ttl) {
            items.put(key, ttl);
        }

        synchronized boolean contains(ItemKey key) {
            return items.containsKey(key);
        }

        @Override
        public synchronized Result deleteIfUnchanged(String table, ItemKey key, String ttlAttribute, String ttl) {
            if (!ttl.equals(items.get(key))) {
                return Result.SUPERSEDED;
            }
            items.remove(key);
            deletes.add(new Deleted(key, ttl, clock.instant()));
            return Result.DELETED;
        }
    }

    /** Step Functions' naming rule for one state machine: a name is taken once started; closing keeps it taken. */
    static class BucketExecutions implements Executions {
        final Map<String, String> inputs = new LinkedHashMap<>();
        final Map<String, Status> statuses = new HashMap<>();
        final List<String> startCalls = new ArrayList<>();
        private Runnable beforeNextStart;

        /** Runs {@code action} once, just before the next StartExecution. */
        void beforeNextStart(Runnable action) {
            beforeNextStart = action;
        }

        @Override
        public StartResult start(String name, String inputJson) {
            Runnable action;
            synchronized (this) {
                action = beforeNextStart;
                beforeNextStart = null;
            }
            if (action != null) {
                action.run();
            }
            return record(name, inputJson);
        }

        private synchronized StartResult record(String name, String inputJson) {
            startCalls.add(name);
            String existing = inputs.get(name);
            if (existing == null) {
                inputs.put(name, inputJson);
                statuses.put(name, Status.RUNNING);
                return StartResult.STARTED;
            }
            return statuses.get(name) == Status.RUNNING && existing.equals(inputJson) ? StartResult.STARTED : StartResult.NAME_TAKEN;
        }

        @Override
        public synchronized Holder describe(String name) {
            Status status = statuses.get(name);
            return status == null ? new Holder(Status.MISSING, null) : new Holder(status, status == Status.RUNNING ? null : Instant.EPOCH);
        }

        @Override
        public synchronized StopResult stop(String name) {
            throw new AssertionError("windowed mode stops no executions, yet " + name + " was stopped");
        }

        synchronized void close(String name) {
            statuses.put(name, Status.CLOSED);
        }

        synchronized boolean running(String name) {
            return statuses.get(name) == Status.RUNNING;
        }
    }
}
