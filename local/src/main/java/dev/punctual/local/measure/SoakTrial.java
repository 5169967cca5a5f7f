package dev.punctual.local.measure;

import dev.punctual.local.billing.DeletionLedger;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code punctual soak}: the runtime left running, as a developer leaves {@code punctual local}, at a
 * steady rate of writes with TTLs a little way out, for a given number of minutes. Each minute it
 * reports what was written, expired and is pending, and what the process holds: heap after a full
 * collection, resident memory, the journal on disk. A runtime whose memory follows what is pending
 * shows flat figures once the first TTLs fall due; one that keeps the past shows them climb.
 *
 * <p>Then it waits for the last TTLs and gives the same verdict as {@code bench} ({@link AccuracyReport}).
 * When each item was deleted comes from the runtime's {@link DeletionLedger} as each delete returns,
 * in both modes, into two arrays sized for the whole run up front, so the soak's own bookkeeping does
 * not grow the heap it measures.
 */
public final class SoakTrial {

    /** How often the writer tops the items written up to the rate. */
    private static final Duration WRITE_TICK = Duration.ofMillis(100);
    /** How often the journal's size is sampled for the minute's peak. */
    private static final Duration SAMPLE_TICK = Duration.ofSeconds(1);
    private static final Duration MAX_DRAIN = Duration.ofMinutes(10);

    /**
     * What to run.
     *
     * @param minutes how long to write
     * @param ratePerSecond items written a second
     * @param minLead the shortest time from a write to its item's TTL
     * @param maxLead the longest
     * @param grace how long expiry may make no progress, after the last TTL, before what is left is missed
     */
    public record Settings(String table, int minutes, int ratePerSecond, Duration minLead, Duration maxLead,
                           Duration grace) {

        public Settings {
            if (minutes < 1 || ratePerSecond < 1) {
                throw new IllegalArgumentException("a soak needs at least one minute and one write a second");
            }
            if (minLead.compareTo(Duration.ofSeconds(2)) < 0 || maxLead.compareTo(minLead) < 0) {
                throw new IllegalArgumentException("TTL leads must be at least 2 s, the longest no shorter than the"
                        + " shortest; got " + minLead.toSeconds() + "-" + maxLead.toSeconds() + " s");
            }
        }

        /** Items the run writes. */
        int items() {
            return Math.toIntExact((long) minutes * 60 * ratePerSecond);
        }
    }

    /** Told of each minute as it ends. */
    public interface Progress {
        void minute(SoakMinute minute);
    }

    /** What a soak found: each minute, then the accuracy of every item. */
    public record Report(List<SoakMinute> minutes, AccuracyReport accuracy) {
    }

    private final LocalRuntime runtime;
    private final Clock clock;

    public SoakTrial(LocalRuntime runtime) {
        this.runtime = runtime;
        this.clock = Clock.systemUTC();
    }

    public Report run(Settings settings, Progress progress) throws InterruptedException {
        TrialPolls polls = new TrialPolls(runtime, clock);
        TrialTable table = TrialTable.create(runtime, settings.table(), polls);
        int capacity = settings.items();
        long[] ttls = new long[capacity];
        AtomicLongArray deletedAtMillis = new AtomicLongArray(capacity);
        AtomicLong expired = new AtomicLong();
        Deletions deletions = new Deletions(settings.table(), deletedAtMillis, expired);
        runtime.observations().deletions().addListener(deletions);
        ThrottleCounts throttledBefore = runtime.observations().throttled();
        Path journal = runtime.options().dataDirectory() == null ? null
                : runtime.options().dataDirectory().resolve("stepfunctions");
        Writer writer = new Writer(table, settings, ttls);
        List<SoakMinute> minutes = new ArrayList<>();
        ScheduledExecutorService writes = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "soak-write-ticks");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Instant start = clock.instant();
            writer.start = start;
            writes.scheduleAtFixedRate(writer::topUp, 0, WRITE_TICK.toMillis(), TimeUnit.MILLISECONDS);
            for (int minute = 1; minute <= settings.minutes(); minute++) {
                Instant end = start.plus(Duration.ofMinutes(minute));
                long peak = 0;
                while (clock.instant().isBefore(end)) {
                    writer.check();
                    peak = Math.max(peak, ProcessMemory.bytesUnder(journal));
                    Thread.sleep(Math.min(SAMPLE_TICK.toMillis(),
                            Math.max(1, Duration.between(clock.instant(), end).toMillis())));
                }
                long written = writer.written.get();
                long journalNow = ProcessMemory.bytesUnder(journal);
                SoakMinute row = new SoakMinute(minute, written, expired.get(), written - expired.get(),
                        runtime.stepFunctionsEngine().openExecutions(),
                        runtime.stepFunctionsEngine().closedExecutionsKept(), ProcessMemory.heapAfterFullGcMb(),
                        ProcessMemory.residentMb(), journalNow, Math.max(peak, journalNow),
                        ProcessMemory.bytesUnder(runtime.options().dataDirectory()));
                minutes.add(row);
                progress.minute(row);
            }
        } finally {
            // Not shutdownNow: an interrupt inside the SDK call would fail the batch being written.
            writes.shutdown();
            if (!writes.awaitTermination(30, TimeUnit.SECONDS)) {
                writes.shutdownNow();
            }
        }
        int written = writer.finish();
        drain(written, ttls, expired, settings.grace());
        runtime.observations().deletions().removeListener(deletions);
        BitSet present = table.scan();
        List<ExpiryObservation> observations = new ArrayList<>(written);
        for (int i = 0; i < written; i++) {
            long deleted = deletedAtMillis.get(i);
            observations.add(new ExpiryObservation(Instant.ofEpochSecond(ttls[i]),
                    deleted == 0 ? null : Instant.ofEpochMilli(deleted), present.get(i), false));
        }
        double writesPerSecond = written / (settings.minutes() * 60.0);
        return new Report(List.copyOf(minutes), AccuracyReport.of(observations, writesPerSecond,
                ProcessMemory.heapAfterFullGcMb(), runtime.observations().throttled().since(throttledBefore)));
    }

    /**
     * Waits until every item written is deleted, or, after the last TTL, nothing has moved for the
     * grace period: no delete, no stream record handled (a record being retried is still progress, as
     * in {@code bench}'s drain), no change in open executions. Ten minutes after the last TTL at most.
     */
    private void drain(int written, long[] ttls, AtomicLong expired, Duration grace) throws InterruptedException {
        long lastTtl = 0;
        for (int i = 0; i < written; i++) {
            lastTtl = Math.max(lastTtl, ttls[i]);
        }
        Instant last = Instant.ofEpochSecond(lastTtl);
        Instant hardLimit = last.plus(MAX_DRAIN);
        String seen = "";
        Instant lastProgress = last;
        while (true) {
            Instant now = clock.instant();
            long done = expired.get();
            if (done >= written || now.isAfter(hardLimit)) {
                return;
            }
            String state = done + "/" + runtime.streamPoller().metrics().snapshot().recordsHandled() + "/"
                    + runtime.stepFunctionsEngine().openExecutions();
            if (!state.equals(seen)) {
                seen = state;
                lastProgress = now.isAfter(lastProgress) ? now : lastProgress;
            }
            if (now.isAfter(last) && now.isAfter(lastProgress.plus(grace))) {
                return;
            }
            Thread.sleep(SAMPLE_TICK.toMillis());
        }
    }

    /** Records when each of the soak's items was deleted, as the runtime's conditional delete returns. */
    private record Deletions(String table, AtomicLongArray deletedAtMillis, AtomicLong expired)
            implements DeletionLedger.Listener {

        @Override
        public void deleted(String deletedFrom, Map<String, AttributeValue> key, String ttl, Instant at) {
            if (!table.equals(deletedFrom)) {
                return;
            }
            AttributeValue id = key.get(TrialTable.KEY_ATTRIBUTE);
            int index = id == null || id.s() == null ? -1 : TrialTable.indexOf(id.s());
            if (index >= 0 && index < deletedAtMillis.length()
                    && deletedAtMillis.compareAndSet(index, 0, Math.max(1, at.toEpochMilli()))) {
                expired.incrementAndGet();
            }
        }

        @Override
        public void superseded(String table, Map<String, AttributeValue> key, String ttl, Instant at) {
            // The soak never changes a TTL: a superseded delete means another delete came first.
        }
    }

    /**
     * Writes items at the rate, each with a TTL a random lead after the second it is written in, on
     * {@link #THREADS} threads as {@code bench} does: a durable DynamoDB Local answers one writer too
     * slowly to keep up with 150 a second on a busy disk.
     */
    private final class Writer {
        /** DynamoDB's BatchWriteItem limit. */
        private static final int BATCH = 25;
        private static final int THREADS = 8;

        private final TrialTable table;
        private final Settings settings;
        private final long[] ttls;
        private final SplittableRandom random = new SplittableRandom(32);
        private final ExecutorService pool = Executors.newFixedThreadPool(THREADS, r -> {
            Thread thread = new Thread(r, "soak-writer");
            thread.setDaemon(true);
            return thread;
        });
        /** Items handed to a writer thread; only the tick thread changes it. */
        private int dispatched;
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicLong written = new AtomicLong();
        private final AtomicReference<RuntimeException> failed = new AtomicReference<>();
        private volatile Instant start;

        Writer(TrialTable table, Settings settings, long[] ttls) {
            this.table = table;
            this.settings = settings;
            this.ttls = ttls;
        }

        /**
         * Hands out what the rate allows by now, a batch at a time, each batch's TTLs taken from the
         * second it is handed out in, at most two batches a thread in flight, so a writer that falls
         * behind catches up without queueing stale TTLs. {@link #written} counts items in the table.
         */
        void topUp() {
            if (failed.get() != null) {
                return;
            }
            long elapsedMillis = Duration.between(start, clock.instant()).toMillis();
            int target = (int) Math.min(ttls.length, elapsedMillis * settings.ratePerSecond() / 1000);
            long minLead = settings.minLead().toSeconds();
            long span = settings.maxLead().toSeconds() - minLead + 1;
            while (dispatched < target && inFlight.get() < 2 * THREADS) {
                int from = dispatched;
                int to = Math.min(target, from + BATCH);
                long firstWholeSecond = Math.floorDiv(clock.millis(), 1000) + 1;
                for (int i = from; i < to; i++) {
                    ttls[i] = firstWholeSecond + minLead + random.nextLong(span);
                }
                dispatched = to;
                inFlight.incrementAndGet();
                pool.execute(() -> {
                    try {
                        table.writeRange(ttls, from, to);
                        written.addAndGet(to - from);
                    } catch (RuntimeException e) {
                        failed.compareAndSet(null, e);
                    } finally {
                        inFlight.decrementAndGet();
                    }
                });
            }
        }

        /** Waits for the batches in flight once the ticks stopped; returns how many items were written. */
        int finish() throws InterruptedException {
            pool.shutdown();
            if (!pool.awaitTermination(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("The soak's writes did not finish within 2 minutes of the run's end");
            }
            check();
            return dispatched;
        }

        /** Rethrows on the soak's thread what stopped the writer. */
        void check() {
            RuntimeException e = failed.get();
            if (e != null) {
                throw new IllegalStateException("Writing the soak's items failed: " + e.getMessage(), e);
            }
        }
    }
}
