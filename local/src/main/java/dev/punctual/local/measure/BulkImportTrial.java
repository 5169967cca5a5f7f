package dev.punctual.local.measure;

import dev.punctual.local.billing.HandlerCalls;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.stream.StreamPollerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code punctual bulk-import}: a bulk import, then items due soon after it. {@code importItems} items
 * due over the next day (from an hour out) are written as fast as DynamoDB Local takes them with the
 * stream mapping on, then {@code lateWaveItems} items due over the minute from {@code waveLead} after
 * the import's last write; the report says how late those expired.
 */
public final class BulkImportTrial {

    /** The import's items are due over this span... */
    private static final Duration IMPORT_SPREAD = Duration.ofDays(1);
    /** ...from this far out. */
    private static final Duration IMPORT_LEAD = Duration.ofHours(1);
    /** The late wave is due over this span, from its lead after the import's last write. */
    private static final Duration WAVE_SPREAD = Duration.ofSeconds(60);
    /** How long after the late wave's last TTL the run stops waiting for its deletes. */
    private static final Duration WAVE_LIMIT = Duration.ofMinutes(15);
    /** The import is scheduled once the mapping has invoked the function for none of it for this long. */
    private static final Duration QUIET = Duration.ofSeconds(2);

    private final LocalRuntime runtime;
    private final TrialPolls polls;

    /** A run on {@code runtime} that reads time from, and waits on, the runtime's own timer. */
    public BulkImportTrial(LocalRuntime runtime) {
        this.runtime = runtime;
        this.polls = new TrialPolls(runtime, runtime.timer().clock());
    }

    /**
     * Imports {@code importItems} items into a new {@code table} on {@code writers} threads, then writes
     * {@code lateWaveItems} due from {@code waveLead} after its last write; waits until the late wave is
     * deleted, or 15 minutes after its last TTL.
     */
    public BulkImportReport run(String table, int importItems, int lateWaveItems, Duration waveLead, int writers,
            ExpiryTrial.Progress progress) throws InterruptedException {
        TrialTable trialTable = TrialTable.create(runtime, table, polls);
        Clock clock = polls.clock();
        runtime.observations().deletions().track(table);
        StreamPoller poller = runtime.streamPoller();
        ThrottleCounts throttledBefore = runtime.observations().throttled();
        StreamPollerMetrics.Snapshot streamBefore = poller.metrics().snapshot();
        Map<String, Long> callsBefore = runtime.observations().handlerCalls().snapshot();
        Instant start = clock.instant();
        long firstImportTtl = start.plus(IMPORT_LEAD).getEpochSecond();
        long[] importTtls = TrialTable.spread(firstImportTtl, importItems, IMPORT_SPREAD.toSeconds());
        trialTable.write(importTtls, writers, Instant.ofEpochSecond(firstImportTtl), progress);
        Instant written = clock.instant();
        StreamPollerMetrics.Snapshot streamAtEnd = poller.metrics().snapshot();
        ImportHandling handling = new ImportHandling(importItems, Duration.between(start, written),
                streamAtEnd.recordsHandled() - streamBefore.recordsHandled(), streamAtEnd.invocations() - streamBefore.invocations(),
                HandlerCalls.between(callsBefore, runtime.observations().handlerCalls().snapshot()));

        long[] waveTtls = TrialTable.spread(written.plus(waveLead).getEpochSecond(), lateWaveItems, WAVE_SPREAD.toSeconds());
        trialTable.writeInOrder(waveTtls, BulkImportTrial::waveItemId);

        Quiet importScheduling = new Quiet(clock.instant());
        Instant waveDeadline = Instant.ofEpochSecond(waveTtls[lateWaveItems - 1]).plus(WAVE_LIMIT);
        polls.until(waveDeadline, TrialPolls.TICK.multipliedBy(5), now -> {
            importScheduling.observe(poller.metrics().snapshot().invocations(), now);
            long deleted = waveDeletions(table, lateWaveItems).stream().filter(Optional::isPresent).count();
            progress.expired(deleted);
            return deleted == lateWaveItems && importScheduling.since != null;
        });
        List<Optional<Instant>> deletedAt = waveDeletions(table, lateWaveItems);
        runtime.observations().deletions().forget(table);
        Instant scheduled = importScheduling.since == null ? clock.instant() : importScheduling.since;
        return report(importItems, Duration.between(start, written), Duration.between(start, scheduled), waveLead,
                waveTtls, deletedAt, runtime.observations().throttled().since(throttledBefore), handling);
    }

    /** The import is scheduled once the mapping has read it all and stopped invoking the function. */
    private static final class Quiet {
        private long lastInvocations = -1;
        private Instant lastChange;
        /** When the mapping last invoked the function before it went quiet; {@code null} until it has. */
        private Instant since;

        Quiet(Instant start) {
            lastChange = start;
        }

        void observe(long invocations, Instant now) {
            if (invocations != lastInvocations) {
                lastInvocations = invocations;
                lastChange = now;
            } else if (since == null && Duration.between(lastChange, now).compareTo(QUIET) >= 0) {
                since = lastChange;
            }
        }
    }

    private List<Optional<Instant>> waveDeletions(String table, int lateWaveItems) {
        List<Optional<Instant>> deletedAt = new ArrayList<>(lateWaveItems);
        for (int i = 0; i < lateWaveItems; i++) {
            deletedAt.add(runtime.observations().deletions().deletedAt(table, TrialTable.key(waveItemId(i))));
        }
        return deletedAt;
    }

    private static BulkImportReport report(int importItems, Duration writing, Duration scheduling, Duration waveLead,
            long[] waveTtls,
            List<Optional<Instant>> deletedAt, ThrottleCounts throttled, ImportHandling handling) {
        int late = 0;
        int missed = 0;
        int early = 0;
        List<Long> lags = new ArrayList<>();
        for (int i = 0; i < waveTtls.length; i++) {
            if (deletedAt.get(i).isEmpty()) {
                missed++;
                late++;
                continue;
            }
            long lag = Duration.between(Instant.ofEpochSecond(waveTtls[i]), deletedAt.get(i).get()).toMillis();
            lags.add(lag);
            if (lag < 0) {
                early++;
            } else if (lag > BulkImportReport.LATE.toMillis()) {
                late++;
            }
        }
        long[] sorted = lags.stream().mapToLong(Long::longValue).sorted().toArray();
        return new BulkImportReport(importItems, writing.toMillis() / 1e3, scheduling.toMillis() / 1e3, waveTtls.length,
                waveLead.toSeconds(), late, missed, early, sorted, throttled, handling);
    }

    private static String waveItemId(int index) {
        return "wave-" + index;
    }
}
