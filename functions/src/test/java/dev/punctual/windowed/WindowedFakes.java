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
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/** In-memory stand-ins for windowed mode's collaborators, each as strict as the real one where it matters. */
final class WindowedFakes {

    private WindowedFakes() {
    }

    /**
     * A clock tests move; as a {@link Sleeper} it moves itself instead of sleeping. Actions put
     * {@link #at} an instant run as the clock passes it, in order: what other parties do meanwhile.
     */
    static final class ManualClock extends Clock implements Sleeper {
        private Instant now;
        private final java.util.PriorityQueue<Timed> actions = new java.util.PriorityQueue<>();
        private long sequence;

        /** An action put {@link #at} an instant: {@link #withdraw} takes it back. */
        record Timed(Instant at, long sequence, Runnable action) implements Comparable<Timed> {
            @Override
            public int compareTo(Timed other) {
                int byTime = at.compareTo(other.at);
                return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
            }
        }

        ManualClock(Instant start) {
            this.now = start;
        }

        /** Runs {@code action} when the clock reaches {@code when} (at once on the next move if it has). */
        synchronized Timed at(Instant when, Runnable action) {
            Timed timed = new Timed(when, sequence++, action);
            actions.add(timed);
            return timed;
        }

        /** Takes back an action put {@link #at} an instant; {@code true} if it had not run yet. */
        synchronized boolean withdraw(Timed timed) {
            return actions.remove(timed);
        }

        /** The instant of the earliest action not yet run, or {@code null} when there is none. */
        synchronized Instant nextAction() {
            Timed next = actions.peek();
            return next == null ? null : next.at();
        }

        void set(Instant instant) {
            while (true) {
                Timed next;
                synchronized (this) {
                    next = actions.peek();
                    if (next == null || next.at().isAfter(instant)) {
                        if (instant.isAfter(now)) {
                            now = instant;
                        }
                        return;
                    }
                    actions.poll();
                    if (next.at().isAfter(now)) {
                        now = next.at();
                    }
                }
                next.action().run();
            }
        }

        void advance(Duration duration) {
            set(instant().plus(duration));
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
        private final Map<Map.Entry<Bucket, MinutePart>, Long> throughs = new HashMap<>();
        private final Map<Map.Entry<Bucket, MinutePart>, Long> nexts = new HashMap<>();
        private final Map<String, Runnable> before = new HashMap<>();
        private final Map<String, Integer> calls = new HashMap<>();
        private final Map<String, Map<Integer, Runnable>> beforeNth = new HashMap<>();
        int chunkWrites;
        /** Every chunk written, in write order. */
        final List<List<IndexEntry>> writtenChunks = new ArrayList<>();
        /** When each chunk was written, once {@link #timedBy} gave a clock. */
        final List<Instant> writeTimes = new ArrayList<>();
        private Clock clock;

        /** Records when each chunk is written, on {@code clock}. */
        void timedBy(Clock clock) {
            this.clock = clock;
        }

        /** Runs {@code action} once, just before the next call of {@code operation}. */
        void beforeNext(String operation, Runnable action) {
            before.put(operation, action);
        }

        /**
         * Runs {@code action} once, just before the {@code nth} call (counting from 1 since the index was
         * made) of {@code operation}: a point inside a runner's sequence of calls.
         */
        synchronized void beforeCall(String operation, int nth, Runnable action) {
            beforeNth.computeIfAbsent(operation, o -> new HashMap<>()).put(nth, action);
        }

        /** How many calls of {@code operation} the index has had. */
        synchronized int callsOf(String operation) {
            return calls.getOrDefault(operation, 0);
        }

        private void hook(String operation) {
            Runnable action;
            Runnable nthAction;
            synchronized (this) {
                action = before.remove(operation);
                int nth = calls.merge(operation, 1, Integer::sum);
                Map<Integer, Runnable> atCalls = beforeNth.get(operation);
                nthAction = atCalls == null ? null : atCalls.remove(nth);
            }
            if (nthAction != null) {
                nthAction.run();
            }
            if (action != null) {
                action.run();
            }
        }

        /** Counted as one request ({@code putChunks}), then written chunk by chunk as any index may. */
        @Override
        public void putChunks(List<IndexChunk> request) {
            hook("putChunks");
            ScheduleIndex.super.putChunks(request);
        }

        @Override
        public void putChunk(String table, long second, String digest, Collection<IndexEntry> entries) {
            hook("putChunk");
            synchronized (this) {
                chunkWrites++;
                writtenChunks.add(List.copyOf(entries));
                if (clock != null) {
                    writeTimes.add(clock.instant());
                }
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
        public OptionalLong nextDueSecond(String table, long minuteStart, long after) {
            hook("nextDueSecond");
            synchronized (this) {
                return chunks.getOrDefault(table + "|" + minuteStart, Map.of()).keySet().stream()
                        .mapToLong(sort -> Long.parseLong(sort.substring(0, sort.indexOf('|'))))
                        .filter(second -> second > after).min();
            }
        }

        @Override
        public RunnerMark runnerMark(Bucket minute, MinutePart part) {
            hook("runnerMark");
            synchronized (this) {
                Long through = throughs.get(Map.entry(minute, part));
                return through == null ? RunnerMark.NOT_STARTED
                        : new RunnerMark(true, through, nexts.getOrDefault(Map.entry(minute, part), Long.MIN_VALUE));
            }
        }

        @Override
        public RunnerMark begin(Bucket minute, MinutePart part) {
            hook("begin");
            synchronized (this) {
                throughs.putIfAbsent(Map.entry(minute, part), minute.start() - 1);
                return new RunnerMark(true, throughs.get(Map.entry(minute, part)),
                        nexts.getOrDefault(Map.entry(minute, part), Long.MIN_VALUE));
            }
        }

        @Override
        public void advanceThrough(Bucket minute, MinutePart part, long second) {
            hook("advanceThrough");
            synchronized (this) {
                throughs.merge(Map.entry(minute, part), second, Math::max);
            }
        }

        @Override
        public void recordNext(Bucket minute, MinutePart part, long second) {
            hook("recordNext");
            synchronized (this) {
                nexts.merge(Map.entry(minute, part), second, Math::max);
            }
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
        /** Every conditional delete asked for, successful or not (each is billed). */
        final List<Deleted> attempts = new ArrayList<>();

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
            attempts.add(new Deleted(key, ttl, clock.instant()));
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
        final List<String> describeCalls = new ArrayList<>();
        private Runnable beforeNextStart;
        private java.util.function.BiConsumer<String, String> onStarted = (name, input) -> { };

        /** Tells {@code listener} the name and input of every execution started from now on. */
        void onStarted(java.util.function.BiConsumer<String, String> listener) {
            onStarted = listener;
        }

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

        private StartResult record(String name, String inputJson) {
            boolean started;
            StartResult result;
            synchronized (this) {
                startCalls.add(name);
                String existing = inputs.get(name);
                started = existing == null;
                if (started) {
                    inputs.put(name, inputJson);
                    statuses.put(name, Status.RUNNING);
                    result = StartResult.STARTED;
                } else {
                    result = statuses.get(name) == Status.RUNNING && existing.equals(inputJson) ? StartResult.STARTED
                            : StartResult.NAME_TAKEN;
                }
            }
            if (started) {
                onStarted.accept(name, inputJson);
            }
            return result;
        }

        @Override
        public synchronized Holder describe(String name) {
            describeCalls.add(name);
            Status status = statuses.get(name);
            return status == null ? new Holder(Status.MISSING, null)
                    : new Holder(status, status == Status.RUNNING ? null : Instant.EPOCH, inputs.get(name));
        }

        @Override
        public synchronized StopResult stop(String name) {
            throw new AssertionError("windowed mode stops no executions, yet " + name + " was stopped");
        }

        synchronized void close(String name) {
            statuses.put(name, Status.CLOSED);
        }

        /** The execution ended unfinished: failed, timed out or was stopped. */
        synchronized void fail(String name) {
            statuses.put(name, Status.FAILED);
        }

        /** How many executions have the bucket's name or one of its generations' (and hops'). */
        synchronized long executionsOf(Bucket bucket) {
            return inputs.keySet().stream().filter(name -> name.startsWith(bucket.executionName())).count();
        }

        synchronized boolean running(String name) {
            return statuses.get(name) == Status.RUNNING;
        }
    }
}
