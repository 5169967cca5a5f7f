package dev.punctual.local.measure;

import dev.punctual.local.modes.WindowedParts;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.timeline.BucketPhaseRecorder;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Writes items with TTLs spread over the coming seconds into a fresh table of a running
 * {@link LocalRuntime}, lets Punctual expire them, and measures how it went: the figures of
 * {@code punctual demo} and {@code punctual bench}. {@link ScheduleTrial} (for
 * {@code bench --schedule-only}) and {@link BulkImportTrial} run on the same settings and parts.
 *
 * <p>Two independent sources decide "early": the execution history (the conditional delete's
 * {@code TaskSucceeded} before the TTL), and table reads (shortly before each TTL second, a consistent
 * read of up to 100 of the items due then, which must all still be there). "Missed" means an item is
 * still in the table once every TTL has passed and a grace period went by with no item leaving; the
 * table is scanned only then, so verification does not compete with the deletes it measures.
 */
public final class ExpiryTrial {

    /** However steady the progress, the trial stops waiting this long after the last TTL. */
    private static final Duration MAX_DRAIN = Duration.ofMinutes(10);

    /**
     * What to run.
     *
     * @param table name of the table to create
     * @param items how many items
     * @param spread TTLs are spread evenly (whole seconds, as native TTL needs) over this span
     * @param lead time from the start until the first TTL, so writes and scheduling run ahead
     * @param grace once every TTL has passed, how long the table may go without an item leaving before
     *     the items left are counted missed (the wait ends at the latest 10 minutes after the last TTL)
     * @param writers concurrent BatchWriteItem callers
     */
    public record Settings(String table, int items, Duration spread, Duration lead, Duration grace, int writers) {

        public Settings {
            if (items < 1) {
                throw new IllegalArgumentException("items must be at least 1, got " + items);
            }
            if (spread.isNegative() || lead.isNegative() || grace.isNegative()) {
                throw new IllegalArgumentException("spread, lead and grace must not be negative");
            }
            if (writers < 1) {
                throw new IllegalArgumentException("writers must be at least 1, got " + writers);
            }
        }

        /** The items' TTLs, in order: the first {@code lead} (and a second) from {@code now}, then spread evenly. */
        long[] ttls(Instant now) {
            return TrialTable.spread(now.plus(lead).plusSeconds(1).getEpochSecond(), items, spread.toSeconds());
        }
    }

    /** Progress reports, e.g. to a progress bar. */
    public interface Progress {
        /** Items written so far. */
        void written(long count);

        /** Items gone from the table so far, by the latest scan. */
        void expired(long count);

        /** No progress display. */
        Progress NONE = new Progress() {
            @Override
            public void written(long count) {
            }

            @Override
            public void expired(long count) {
            }
        };
    }

    /**
     * The items were not all written before the first TTL came. The trial stops: what it would report
     * is how fast the items were written, not how accurately they expired.
     */
    public static final class LeadTooShortException extends IllegalStateException {

        private final Duration suggestedLead;

        LeadTooShortException(long written, int items, Duration elapsed, long suggestedLeadSeconds) {
            super(String.format(Locale.ROOT, "only %d of %d items were written when the first TTL came, %d s after"
                    + " the start, so nothing was measured; at this write rate a lead of at least %d s is needed (--lead)",
                    written, items, elapsed.toSeconds(), suggestedLeadSeconds));
            this.suggestedLead = Duration.ofSeconds(suggestedLeadSeconds);
        }

        /** The lead the message suggests: enough for the write rate seen, for a trial run again. */
        public Duration suggestedLead() {
            return suggestedLead;
        }

        /** Suggests half as much again as writing every item takes at the rate seen so far, plus 10 s for scheduling. */
        static LeadTooShortException atRate(long written, int items, Duration elapsed) {
            double rate = Math.max(1, written) / Math.max(0.001, elapsed.toNanos() / 1e9);
            long suggested = (long) Math.ceil(items / rate * 1.5) + 10;
            return new LeadTooShortException(written, items, elapsed, suggested);
        }
    }

    private final LocalRuntime runtime;
    private final Clock clock;
    private final TrialPolls polls;

    /** A trial on {@code runtime} that reads time from, and waits on, the runtime's own timer. */
    public ExpiryTrial(LocalRuntime runtime) {
        this(runtime, runtime.timer().clock());
    }

    /**
     * A trial that reads its own time from {@code clock} (a test's, to move the trial's time alone). Its
     * polls still wait on the runtime's timer, which drives what they poll for.
     */
    public ExpiryTrial(LocalRuntime runtime, Clock clock) {
        this.runtime = runtime;
        this.clock = clock;
        this.polls = new TrialPolls(runtime, clock);
    }

    /**
     * Runs the trial and reports; blocks until every TTL has passed and the table is empty, or stopped
     * emptying for the grace period.
     *
     * <p>The stream mapping is disabled while the items are written and enabled once they all are,
     * as after an event source mapping is re-enabled: the scheduling figure is then the rate at which
     * Punctual turns a stream backlog into running executions, not the rate of the writer.
     */
    public AccuracyReport run(Settings settings, Progress progress) throws InterruptedException {
        TrialTable table = TrialTable.create(runtime, settings.table(), polls);
        // The ledger records when each conditional delete returned: windowed mode's delete times.
        runtime.observations().deletions().track(settings.table());
        // Windowed mode's bucket function tells each bucket's phases; per item there are none to track.
        Optional<BucketPhaseRecorder> bucketPhases = runtime.mode().windowed().map(WindowedParts::bucketPhases);
        bucketPhases.ifPresent(recorder -> recorder.track(settings.table()));
        long[] ttls = settings.ttls(clock.instant());
        StreamPoller poller = runtime.streamPoller();
        ThrottleCounts throttledBefore = runtime.observations().throttled();
        AtomicLongArray writtenAt;
        poller.setEnabled(false);
        // Read the baselines while the poller is off: once it is on, an execution it starts before the
        // read would count as already open, and the trial would scan the table before it expires.
        long invokedBefore = poller.metrics().snapshot().recordsHandled();
        int openBefore = runtime.stepFunctionsEngine().openExecutions();
        Instant enabledAt;
        try {
            writtenAt = table.write(ttls, settings.writers(), Instant.ofEpochSecond(ttls[0]), progress);
        } finally {
            enabledAt = clock.instant();
            poller.setEnabled(true);
        }

        EarlyProbes probes = new EarlyProbes(runtime.dynamoDb(), settings.table(), ttls, writtenAt, clock);
        DeletionTimes deletionTimes = DeletionTimes.of(runtime);
        Drain drain = new Drain(settings, ttls[0], ttls[ttls.length - 1], invokedBefore, openBefore, probes, deletionTimes,
                progress);
        polls.until(drain.hardLimit, TrialPolls.TICK, drain::done);
        ResourceUse used = drain.atFirstWake == null ? ResourceUse.none()
                : ResourceUse.Snapshot.take(clock.instant()).since(drain.atFirstWake);
        BitSet present = table.scan();
        progress.expired(settings.items() - present.cardinality());
        Instant scheduledAll = drain.scheduledAll != null ? drain.scheduledAll : clock.instant();

        Instant now = clock.instant();
        List<ExpiryObservation> observations = new ArrayList<>(ttls.length);
        ExpiryTimeline.Builder timeline = ExpiryTimeline.builder().resources(used);
        for (int i = 0; i < ttls.length; i++) {
            DeletionTimes.ItemTimes times = deletionTimes.times(settings.table(), TrialTable.itemId(i), ttls[i], now);
            observations.add(new ExpiryObservation(Instant.ofEpochSecond(ttls[i]), times.deletedAt(), present.get(i),
                    probes.seenGoneEarly().get(i)));
            timeline.item(ttls[i], times.wokeAt(), times.deletedAt());
        }
        bucketPhases.ifPresent(recorder -> {
            for (long second : Arrays.stream(ttls).distinct().toArray()) {
                recorder.phases(settings.table(), second).ifPresent(bucket -> timeline.bucket(second,
                        bucket.invoked(), bucket.woke(), bucket.sealed(), bucket.read(), bucket.items()));
            }
            recorder.forget(settings.table());
        });
        runtime.observations().deletions().forget(settings.table());
        double seconds = Math.max(0.001, Duration.between(enabledAt, scheduledAll).toNanos() / 1e9);
        return AccuracyReport.of(observations, settings.items() / seconds, Heap.usedMb(),
                runtime.observations().throttled().since(throttledBefore)).withTimeline(timeline.build());
    }

    /**
     * The wait once the items are written. Once every TTL has passed, wait while records are still
     * being scheduled or executions keep closing; done when every item was scheduled and no execution
     * is left, or when nothing moved for a whole grace period (or the hard limit passed). Only then is
     * the table read: scanning while the deletes run would only compete with them for DynamoDB Local.
     */
    private final class Drain {
        private final Settings settings;
        private final long lastTtl;
        private final long invokedBefore;
        private final int openBefore;
        private final EarlyProbes probes;
        private final DeletionTimes deletionTimes;
        private final Progress progress;
        private final Instant hardLimit;
        private Instant scheduledAll;
        /** The process's counters when the first items' executions began to arrive, a second before their TTL. */
        private ResourceUse.Snapshot atFirstWake;
        private final Instant firstWake;
        private Instant lastProgress;
        private long lastInvoked = -1;
        private int fewestOpen = Integer.MAX_VALUE;

        Drain(Settings settings, long firstTtl, long lastTtl, long invokedBefore, int openBefore, EarlyProbes probes,
                DeletionTimes deletionTimes, Progress progress) {
            this.settings = settings;
            this.firstWake = Instant.ofEpochSecond(firstTtl).minus(BucketWorkflow.WARM_LEAD);
            this.lastTtl = lastTtl;
            this.invokedBefore = invokedBefore;
            this.openBefore = openBefore;
            this.probes = probes;
            this.deletionTimes = deletionTimes;
            this.progress = progress;
            this.lastProgress = Instant.ofEpochSecond(lastTtl);
            this.hardLimit = lastProgress.plus(MAX_DRAIN);
        }

        boolean done(Instant now) {
            if (atFirstWake == null && !now.isBefore(firstWake)) {
                atFirstWake = ResourceUse.Snapshot.take(now);
            }
            int n = settings.items();
            long invoked = runtime.streamPoller().metrics().snapshot().recordsHandled() - invokedBefore;
            if (scheduledAll == null && invoked >= n) {
                scheduledAll = now;
            }
            probes.probeBefore(now);
            int open = Math.max(0, runtime.stepFunctionsEngine().openExecutions() - openBefore);
            progress.expired(deletionTimes.deletedSoFar(settings.table(), n, scheduledAll != null, open));
            if (invoked > lastInvoked) {
                lastInvoked = invoked;
                fewestOpen = open;
                lastProgress = later(lastProgress, now);
            } else if (open < fewestOpen) {
                fewestOpen = open;
                lastProgress = later(lastProgress, now);
            }
            if (now.getEpochSecond() < lastTtl) {
                return false;
            }
            return scheduledAll != null && open == 0 || now.isAfter(lastProgress.plus(settings.grace()));
        }
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
