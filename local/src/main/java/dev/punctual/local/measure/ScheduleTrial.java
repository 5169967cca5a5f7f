package dev.punctual.local.measure;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.StreamPoller;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code bench --schedule-only}: writes a trial's items with the stream mapping disabled, enables it,
 * and stops once the handler has been handed every record, without waiting for the TTLs. The items are
 * then pending, in executions or in the index: what holding a bulk import pending costs.
 */
public final class ScheduleTrial {

    /** However slow the scheduling, the run gives up this long after the mapping was enabled. */
    private static final Duration SCHEDULING_LIMIT = Duration.ofMinutes(20);

    private final LocalRuntime runtime;
    private final TrialPolls polls;

    /** A run on {@code runtime} that reads time from, and waits on, the runtime's own timer. */
    public ScheduleTrial(LocalRuntime runtime) {
        this.runtime = runtime;
        this.polls = new TrialPolls(runtime, runtime.timer().clock());
    }

    /** Writes the items of {@code settings} (its grace unused), lets the handler schedule them, and reports. */
    public ScheduleReport run(ExpiryTrial.Settings settings, ExpiryTrial.Progress progress) throws InterruptedException {
        TrialTable table = TrialTable.create(runtime, settings.table(), polls);
        Clock clock = polls.clock();
        int n = settings.items();
        long[] ttls = settings.ttls(clock.instant());
        StreamPoller poller = runtime.streamPoller();
        int openBefore = runtime.stepFunctionsEngine().openExecutions();
        Instant writeStart = clock.instant();
        poller.setEnabled(false);
        long invokedBefore = poller.metrics().snapshot().recordsHandled();
        try {
            table.write(ttls, settings.writers(), Instant.ofEpochSecond(ttls[0]), progress);
        } finally {
            poller.setEnabled(true);
        }
        Instant enabledAt = clock.instant();
        boolean scheduled = polls.until(enabledAt.plus(SCHEDULING_LIMIT), TrialPolls.TICK, now -> {
            long invoked = poller.metrics().snapshot().recordsHandled() - invokedBefore;
            progress.expired(Math.min(n, invoked));
            return invoked >= n;
        });
        if (!scheduled) {
            throw new IllegalStateException("only " + (poller.metrics().snapshot().recordsHandled() - invokedBefore) + " of "
                    + n + " records were scheduled within " + SCHEDULING_LIMIT.toMinutes() + " minutes");
        }
        Instant scheduledAt = clock.instant();
        System.gc();
        return new ScheduleReport(n, Duration.between(writeStart, enabledAt), Duration.between(enabledAt, scheduledAt),
                runtime.stepFunctionsEngine().openExecutions() - openBefore, Heap.usedMb());
    }
}
