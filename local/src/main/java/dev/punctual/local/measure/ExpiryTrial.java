package dev.punctual.local.measure;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ExecutionNames;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.TtlValue;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.HistoryEvent;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.local.time.TimerSleeper;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Writes items with TTLs spread over the coming seconds into a fresh table of a running
 * {@link LocalRuntime}, lets Punctual expire them, and measures how it went: the figures of
 * {@code punctual demo} and {@code punctual bench}.
 *
 * <p>Two independent sources decide "early": the execution history (the conditional delete's
 * {@code TaskSucceeded} before the TTL), and table reads (shortly before each TTL second, a consistent
 * read of up to 100 of the items due then, which must all still be there). "Missed" means an item is
 * still in the table once every TTL has passed and a grace period went by with no item leaving; the
 * table is scanned only then, so verification does not compete with the deletes it measures.
 */
public final class ExpiryTrial {

    /** The TTL attribute of the trial table. */
    public static final String TTL_ATTRIBUTE = "expiresAt";
    private static final String KEY_ATTRIBUTE = "id";
    private static final int BATCH_WRITE_LIMIT = 25;
    private static final Duration TICK = Duration.ofMillis(20);
    /** However steady the progress, the trial stops waiting this long after the last TTL. */
    private static final Duration MAX_DRAIN = Duration.ofMinutes(10);
    /** Items due at a second are probed when that second is this close... */
    private static final Duration PROBE_WINDOW = Duration.ofMillis(600);
    /** ...and not closer than this, so the read ends before the TTL. */
    private static final Duration PROBE_MARGIN = Duration.ofMillis(150);
    /** Items probed per TTL second at most. */
    private static final int PROBE_SAMPLE = 100;
    private static final int BATCH_GET_LIMIT = 100;

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
        LeadTooShortException(long written, int items, Duration elapsed, long suggestedLeadSeconds) {
            super(String.format(Locale.ROOT, "only %d of %d items were written when the first TTL came, %d s after"
                    + " the start, so nothing was measured; at this write rate a lead of at least %d s is needed (--lead)",
                    written, items, elapsed.toSeconds(), suggestedLeadSeconds));
        }
    }

    private final LocalRuntime runtime;
    private final Clock clock;
    private final TimerSleeper ticks;

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
        this.ticks = new TimerSleeper(runtime.timer());
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
        createWatchedTable(settings.table());
        boolean windowed = runtime.options().mode() == ExpiryMode.WINDOWED;
        // Windowed mode has no execution per item to read the delete time from; the runtime's
        // ledger records when each conditional delete returned.
        runtime.deletions().track(settings.table());
        runtime.bucketPhases().track(settings.table());

        int n = settings.items();
        long[] ttls = ttls(settings);
        long firstTtl = ttls[0];
        long lastTtl = ttls[n - 1];

        StreamPoller poller = runtime.streamPoller();
        ThrottleCounts throttledBefore = runtime.throttled();
        AtomicLongArray writtenAt;
        poller.setEnabled(false);
        // Read the baselines while the poller is off: once it is on, an execution it starts before the
        // read would count as already open, and the trial would scan the table before it expires.
        long invokedBefore = poller.metrics().snapshot().recordsHandled();
        int openBefore = runtime.stepFunctionsEngine().openExecutions();
        Instant enabledAt;
        try {
            writtenAt = write(settings, ttls, Instant.ofEpochSecond(firstTtl), progress);
        } finally {
            enabledAt = clock.instant();
            poller.setEnabled(true);
        }

        Probes probes = new Probes(settings.table(), ttls, writtenAt);
        BitSet present = new BitSet(n);
        Instant scheduledAll = null;
        // Once every TTL has passed, wait while records are still being scheduled or executions keep
        // closing; when every item was scheduled and no execution is left, or nothing moved for a whole
        // grace period (or the hard limit passed), read the table once. Scanning while the deletes run
        // would only compete with them for DynamoDB Local.
        Instant lastProgress = Instant.ofEpochSecond(lastTtl);
        Instant hardLimit = lastProgress.plus(MAX_DRAIN);
        long lastInvoked = -1;
        int fewestOpen = Integer.MAX_VALUE;
        while (true) {
            Instant now = clock.instant();
            long invoked = poller.metrics().snapshot().recordsHandled() - invokedBefore;
            if (scheduledAll == null && invoked >= n) {
                scheduledAll = now;
            }
            probes.probeBefore(now);
            int open = Math.max(0, runtime.stepFunctionsEngine().openExecutions() - openBefore);
            progress.expired(windowed ? runtime.deletions().count(settings.table())
                    : scheduledAll == null ? 0 : Math.max(0, n - open));
            if (invoked > lastInvoked) {
                lastInvoked = invoked;
                fewestOpen = open;
                lastProgress = later(lastProgress, now);
            } else if (open < fewestOpen) {
                fewestOpen = open;
                lastProgress = later(lastProgress, now);
            }
            if (now.getEpochSecond() >= lastTtl) {
                boolean done = scheduledAll != null && open == 0;
                if (done || now.isAfter(lastProgress.plus(settings.grace())) || now.isAfter(hardLimit)) {
                    break;
                }
            }
            ticks.sleep(TICK);
        }
        scan(settings.table(), present);
        progress.expired(n - present.cardinality());
        if (scheduledAll == null) {
            scheduledAll = clock.instant();
        }

        ExpiryTimeline.Builder timeline = ExpiryTimeline.builder();
        List<ExpiryObservation> observations = observe(settings.table(), ttls, present, probes.seenGoneEarly(), windowed,
                timeline);
        runtime.deletions().forget(settings.table());
        runtime.bucketPhases().forget(settings.table());
        double seconds = Math.max(0.001, Duration.between(enabledAt, scheduledAll).toNanos() / 1e9);
        long heapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
        return AccuracyReport.of(observations, n / seconds, heapMb, runtime.throttled().since(throttledBefore))
                .withTimeline(timeline.build());
    }

    /**
     * What scheduling a backlog left: how long writing and scheduling took, how many executions are
     * open for it, and the heap after a collection. For {@code bench --schedule-only}, which measures
     * what a bulk import costs to hold pending, without waiting for its TTLs.
     */
    public record ScheduleReport(int items, Duration writing, Duration scheduling, int openExecutions, long heapMb) {

        public String toJson() {
            return String.format(java.util.Locale.ROOT,
                    "{\"items\":%d,\"writingSeconds\":%.1f,\"schedulingSeconds\":%.1f,\"schedulingPerSecond\":%.1f,"
                            + "\"openExecutions\":%d,\"heapMb\":%d}",
                    items, writing.toMillis() / 1e3, scheduling.toMillis() / 1e3, perSecond(), openExecutions, heapMb);
        }

        public String toText() {
            return String.format(java.util.Locale.ROOT, String.join("%n",
                    "items pending      %d",
                    "writing            %.1f s",
                    "scheduling         %.1f s (%.0f records/s, stream backlog to pending)",
                    "open executions    %d",
                    "heap used          %d MB (after a collection)"),
                    items, writing.toMillis() / 1e3, scheduling.toMillis() / 1e3, perSecond(), openExecutions, heapMb);
        }

        private double perSecond() {
            return items / Math.max(0.001, scheduling.toNanos() / 1e9);
        }
    }

    /**
     * Writes the items with the stream mapping disabled, enables it, and returns once the handler
     * has been handed every record: the items are then pending, in executions or in the index.
     */
    public ScheduleReport schedule(Settings settings, Progress progress) throws InterruptedException {
        createWatchedTable(settings.table());
        int n = settings.items();
        long[] ttls = ttls(settings);
        long firstTtl = ttls[0];
        StreamPoller poller = runtime.streamPoller();
        int openBefore = runtime.stepFunctionsEngine().openExecutions();
        Instant writeStart = clock.instant();
        poller.setEnabled(false);
        long invokedBefore = poller.metrics().snapshot().recordsHandled();
        try {
            write(settings, ttls, Instant.ofEpochSecond(firstTtl), progress);
        } finally {
            poller.setEnabled(true);
        }
        Instant enabledAt = clock.instant();
        Instant giveUp = enabledAt.plus(MAX_DRAIN).plus(MAX_DRAIN);
        long invoked = 0;
        while (invoked < n) {
            if (clock.instant().isAfter(giveUp)) {
                throw new IllegalStateException("only " + invoked + " of " + n + " records were scheduled within "
                        + Duration.between(enabledAt, giveUp).toMinutes() + " minutes");
            }
            ticks.sleep(TICK);
            invoked = poller.metrics().snapshot().recordsHandled() - invokedBefore;
            progress.expired(Math.min(n, invoked));
        }
        Instant scheduled = clock.instant();
        System.gc();
        long heapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
        return new ScheduleReport(n, Duration.between(writeStart, enabledAt), Duration.between(enabledAt, scheduled),
                runtime.stepFunctionsEngine().openExecutions() - openBefore, heapMb);
    }

    /**
     * What a bulk import did to expiries due soon after it: how long the import took to write and to
     * schedule, and how late the few items written right after it expired.
     *
     * @param importSeconds from the first write of the import until the stream mapping had no work left
     *     (every record of the import handled, throttled ones retried until they succeeded)
     * @param late items deleted more than {@link #LATE} after their TTL, or not at all within the wait
     * @param lagMillis lag of each deleted late-wave item, sorted
     */
    public record BulkImportReport(int importItems, double writeSeconds, double importSeconds, int lateWaveItems,
                                   int late, int missed, int early, long[] lagMillis, ThrottleCounts throttled) {

        /** Lag beyond which an expiry counts as late: Punctual's promise is the second. */
        public static final Duration LATE = Duration.ofSeconds(1);

        long lag(double percentile) {
            return Percentiles.nearestRank(lagMillis, percentile);
        }

        public String toJson() {
            return String.format(java.util.Locale.ROOT,
                    "{\"importItems\":%d,\"importWriteSeconds\":%.1f,\"importSchedulingSeconds\":%.1f,"
                            + "\"lateWaveItems\":%d,\"late\":%d,\"missed\":%d,\"early\":%d,"
                            + "\"lagMs\":{\"p50\":%d,\"p99\":%d,\"max\":%d},"
                            + "\"throttled\":{\"startExecution\":%d,\"stopExecution\":%d,\"stateTransitions\":%d}}",
                    importItems, writeSeconds, importSeconds, lateWaveItems, late, missed, early, lag(50), lag(99),
                    Percentiles.max(lagMillis), throttled.startExecution(), throttled.stopExecution(),
                    throttled.stateTransitions());
        }

        public String toText() {
            return String.format(java.util.Locale.ROOT, String.join("%n",
                    "import             %d items, written in %.1f s, scheduled after %.1f s",
                    "then               %d items due 60-120 s after the import ended",
                    "late (> 1 s)       %d",
                    "missed             %d",
                    "early              %d   (must be 0)",
                    "lag p50 / p99 / max  %d / %d / %d ms",
                    "throttled          %d StartExecution, %d StopExecution, %d state transitions"),
                    importItems, writeSeconds, importSeconds, lateWaveItems, late, missed, early, lag(50), lag(99),
                    Percentiles.max(lagMillis), throttled.startExecution(), throttled.stopExecution(),
                    throttled.stateTransitions());
        }
    }

    /**
     * A bulk import, then items due soon after it: {@code importItems} items due over the next day
     * (from an hour out), written as fast as DynamoDB Local takes them with the stream mapping on,
     * then {@code lateWaveItems} items due 60 to 120 s after the import's last write. Waits until the
     * late wave is deleted, or 15 minutes after its last TTL.
     */
    public BulkImportReport bulkImport(String table, int importItems, int lateWaveItems, int writers, Progress progress)
            throws InterruptedException {
        createWatchedTable(table);
        runtime.deletions().track(table);
        StreamPoller poller = runtime.streamPoller();
        ThrottleCounts throttledBefore = runtime.throttled();
        Instant start = clock.instant();
        long firstImportTtl = start.plus(Duration.ofHours(1)).getEpochSecond();
        long[] importTtls = spread(firstImportTtl, importItems, Duration.ofDays(1).toSeconds());
        Settings importSettings = new Settings(table, importItems, Duration.ofDays(1), Duration.ofHours(1), Duration.ZERO, writers);
        write(importSettings, importTtls, Instant.ofEpochSecond(firstImportTtl), progress);
        Instant written = clock.instant();

        long[] waveTtls = spread(written.getEpochSecond() + 60, lateWaveItems, 60);
        AtomicLongArray waveWrittenAt = new AtomicLongArray(lateWaveItems);
        for (int from = 0; from < lateWaveItems; from += BATCH_WRITE_LIMIT) {
            writeBatch(table, waveTtls, from, Math.min(lateWaveItems, from + BATCH_WRITE_LIMIT), waveWrittenAt, count -> { },
                    i -> "wave-" + i);
        }

        // The import is scheduled once the mapping has read it all and stopped invoking the function.
        Instant importScheduled = null;
        long lastInvocations = -1;
        Instant lastChange = clock.instant();
        Instant waveDeadline = Instant.ofEpochSecond(waveTtls[lateWaveItems - 1]).plus(Duration.ofMinutes(15));
        while (clock.instant().isBefore(waveDeadline)) {
            long invocations = poller.metrics().snapshot().invocations();
            if (invocations != lastInvocations) {
                lastInvocations = invocations;
                lastChange = clock.instant();
            } else if (importScheduled == null && Duration.between(lastChange, clock.instant()).toMillis() >= 2_000) {
                importScheduled = lastChange;
            }
            int deleted = 0;
            for (int i = 0; i < lateWaveItems; i++) {
                if (runtime.deletions().deletedAt(table, key("wave-" + i)).isPresent()) {
                    deleted++;
                }
            }
            progress.expired(deleted);
            if (deleted == lateWaveItems && importScheduled != null) {
                break;
            }
            ticks.sleep(TICK.multipliedBy(5));
        }
        int late = 0;
        int missed = 0;
        int early = 0;
        List<Long> lags = new ArrayList<>();
        for (int i = 0; i < lateWaveItems; i++) {
            Instant ttl = Instant.ofEpochSecond(waveTtls[i]);
            java.util.Optional<Instant> deletedAt = runtime.deletions().deletedAt(table, key("wave-" + i));
            if (deletedAt.isEmpty()) {
                missed++;
                late++;
                continue;
            }
            long lag = Duration.between(ttl, deletedAt.get()).toMillis();
            lags.add(lag);
            if (lag < 0) {
                early++;
            } else if (lag > BulkImportReport.LATE.toMillis()) {
                late++;
            }
        }
        runtime.deletions().forget(table);
        long[] sorted = lags.stream().mapToLong(Long::longValue).sorted().toArray();
        Instant scheduled = importScheduled == null ? clock.instant() : importScheduled;
        return new BulkImportReport(importItems, Duration.between(start, written).toMillis() / 1e3,
                Duration.between(start, scheduled).toMillis() / 1e3, lateWaveItems, late, missed, early, sorted,
                runtime.throttled().since(throttledBefore));
    }

    /** A trial item's key, as DynamoDB and the deletion ledger hold it. */
    private static Map<String, AttributeValue> key(String id) {
        return Map.of(KEY_ATTRIBUTE, AttributeValue.fromS(id));
    }

    /** The items' TTLs, in order: the first {@code lead} (and a second) from now, then spread evenly. */
    private long[] ttls(Settings settings) {
        return spread(clock.instant().plus(settings.lead()).plusSeconds(1).getEpochSecond(), settings.items(),
                settings.spread().toSeconds());
    }

    /** {@code n} TTLs from {@code firstTtl} on, evenly over {@code spreadSeconds}, in order. */
    private static long[] spread(long firstTtl, int n, long spreadSeconds) {
        long[] ttls = new long[n];
        for (int i = 0; i < n; i++) {
            ttls[i] = firstTtl + (long) i * spreadSeconds / n;
        }
        return ttls;
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /**
     * The "early" cross-check that does not trust the execution history: shortly before each whole
     * second, reads (consistently, over HTTP, as an application would) a sample of the items whose TTL
     * is that second. Every one of them was written before the read and must still be there; one that
     * is not was deleted early. Sampling keeps the reads from competing with the deletes they check.
     */
    private final class Probes {
        private final String table;
        private final long[] ttls;
        private final AtomicLongArray writtenAt;
        private final BitSet seenGoneEarly;
        private int next;

        Probes(String table, long[] ttls, AtomicLongArray writtenAt) {
            this.table = table;
            this.ttls = ttls;
            this.writtenAt = writtenAt;
            this.seenGoneEarly = new BitSet(ttls.length);
        }

        BitSet seenGoneEarly() {
            return seenGoneEarly;
        }

        /** Probes the items due at the next whole second once {@code now} is within the probe window of it. */
        void probeBefore(Instant now) {
            while (next < ttls.length && ttls[next] * 1000 <= now.toEpochMilli() + PROBE_WINDOW.toMillis()) {
                long second = ttls[next];
                int from = next;
                while (next < ttls.length && ttls[next] == second) {
                    next++;
                }
                if (second * 1000 - now.toEpochMilli() > PROBE_MARGIN.toMillis()) {
                    probe(from, next, second);
                }
            }
        }

        private void probe(int from, int to, long second) {
            int step = Math.max(1, (to - from + PROBE_SAMPLE - 1) / PROBE_SAMPLE);
            List<Integer> sample = new ArrayList<>();
            for (int i = from; i < to; i += step) {
                sample.add(i);
            }
            long readStart = clock.millis();
            BitSet found = new BitSet(ttls.length);
            for (int at = 0; at < sample.size(); at += BATCH_GET_LIMIT) {
                List<Integer> chunk = sample.subList(at, Math.min(sample.size(), at + BATCH_GET_LIMIT));
                List<Map<String, AttributeValue>> keys = new ArrayList<>();
                chunk.forEach(i -> keys.add(Map.of(KEY_ATTRIBUTE,
                        AttributeValue.fromS(itemId(i)))));
                Map<String, KeysAndAttributes> pending = Map.of(table, KeysAndAttributes.builder().keys(keys)
                        .consistentRead(true).projectionExpression("#id")
                        .expressionAttributeNames(Map.of("#id", KEY_ATTRIBUTE)).build());
                while (!pending.isEmpty()) {
                    Map<String, KeysAndAttributes> request = pending;
                    BatchGetItemResponse response = runtime.dynamoDb().batchGetItem(r -> r.requestItems(request));
                    response.responses().getOrDefault(table, List.of())
                            .forEach(item -> found.set(indexOf(item.get(KEY_ATTRIBUTE).s())));
                    pending = response.unprocessedKeys();
                }
            }
            long readEnd = clock.millis();
            if (readEnd >= second * 1000) {
                return; // the read reached the TTL itself: a missing item proves nothing
            }
            for (int i : sample) {
                long written = writtenAt.get(i);
                if (written != 0 && written <= readStart && !found.get(i)) {
                    seenGoneEarly.set(i);
                }
            }
        }
    }

    private void createWatchedTable(String table) throws InterruptedException {
        DynamoDbClient dynamoDb = runtime.dynamoDb();
        dynamoDb.createTable(r -> r.tableName(table)
                .keySchema(KeySchemaElement.builder().attributeName(KEY_ATTRIBUTE).keyType(KeyType.HASH).build())
                .attributeDefinitions(AttributeDefinition.builder().attributeName(KEY_ATTRIBUTE)
                        .attributeType(ScalarAttributeType.S).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
        dynamoDb.updateTimeToLive(r -> r.tableName(table)
                .timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL_ATTRIBUTE)));
        Instant giveUp = clock.instant().plusSeconds(30);
        while (runtime.streamPoller().watchedTables().stream().noneMatch(t -> t.tableName().equals(table))) {
            if (clock.instant().isAfter(giveUp)) {
                throw new IllegalStateException("The stream poller did not pick up table " + table + " within 30 s");
            }
            runtime.streamPoller().discoverTables();
            ticks.sleep(TICK);
        }
    }

    /** Writes every item, or throws {@link LeadTooShortException} once {@code firstTtl} comes first. */
    private AtomicLongArray write(Settings settings, long[] ttls, Instant firstTtl, Progress progress)
            throws InterruptedException {
        int n = ttls.length;
        AtomicLongArray writtenAt = new AtomicLongArray(n);
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        Instant start = clock.instant();
        ExecutorService writers = Executors.newFixedThreadPool(settings.writers());
        try {
            List<Future<?>> batches = new ArrayList<>();
            // Batches in TTL order, so early TTLs are written (and scheduled) first.
            for (int from = 0; from < n; from += BATCH_WRITE_LIMIT) {
                int first = from;
                int end = Math.min(n, from + BATCH_WRITE_LIMIT);
                batches.add(writers.submit(() -> {
                    Instant now = clock.instant();
                    if (!now.isBefore(firstTtl)) {
                        throw leadTooShort(written.get(), n, Duration.between(start, now));
                    }
                    writeBatch(settings.table(), ttls, first, end, writtenAt,
                            count -> progress.written(written.addAndGet(count)));
                }));
            }
            for (Future<?> batch : batches) {
                batch.get();
            }
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof LeadTooShortException leadTooShort) {
                throw leadTooShort;
            }
            throw new IllegalStateException("Writing the trial items failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            writers.shutdownNow();
        }
        return writtenAt;
    }

    /** Half as much again as writing every item took at the rate seen so far, plus 10 s for scheduling. */
    private static LeadTooShortException leadTooShort(long written, int items, Duration elapsed) {
        double rate = Math.max(1, written) / Math.max(0.001, elapsed.toNanos() / 1e9);
        long suggested = (long) Math.ceil(items / rate * 1.5) + 10;
        return new LeadTooShortException(written, items, elapsed, suggested);
    }

    private void writeBatch(String table, long[] ttls, int from, int to, AtomicLongArray writtenAt, LongConsumer done) {
        writeBatch(table, ttls, from, to, writtenAt, done, ExpiryTrial::itemId);
    }

    private void writeBatch(String table, long[] ttls, int from, int to, AtomicLongArray writtenAt, LongConsumer done,
            java.util.function.IntFunction<String> ids) {
        List<WriteRequest> requests = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            requests.add(WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                    KEY_ATTRIBUTE, AttributeValue.fromS(ids.apply(i)),
                    TTL_ATTRIBUTE, AttributeValue.fromN(Long.toString(ttls[i])),
                    "note", AttributeValue.fromS("written by the Punctual trial")))
                    .build()).build());
        }
        Map<String, List<WriteRequest>> pending = Map.of(table, requests);
        while (!pending.isEmpty() && !pending.getOrDefault(table, List.of()).isEmpty()) {
            Map<String, List<WriteRequest>> request = pending;
            pending = runtime.dynamoDb().batchWriteItem(r -> r.requestItems(request)).unprocessedItems();
        }
        long now = clock.millis();
        for (int i = from; i < to; i++) {
            writtenAt.set(i, now);
        }
        done.accept(to - from);
    }

    /** Marks which items are in the table now. */
    private void scan(String table, BitSet present) {
        present.clear();
        runtime.dynamoDb().scanPaginator(r -> r.tableName(table).projectionExpression("#id")
                .expressionAttributeNames(Map.of("#id", KEY_ATTRIBUTE)).consistentRead(true))
                .items().forEach(item -> present.set(indexOf(item.get(KEY_ATTRIBUTE).s())));
    }

    /** Each item's observation; its instants go into {@code timeline} too, with windowed mode's bucket phases. */
    private List<ExpiryObservation> observe(String table, long[] ttls, BitSet present, BitSet seenGoneEarly, boolean windowed,
            ExpiryTimeline.Builder timeline) {
        StepFunctionsEngine engine = runtime.stepFunctionsEngine();
        Instant now = clock.instant();
        List<ExpiryObservation> observations = new ArrayList<>(ttls.length);
        for (int i = 0; i < ttls.length; i++) {
            if (windowed) {
                Instant deletedAt = runtime.deletions().deletedAt(table, key(itemId(i))).orElse(null);
                observations.add(new ExpiryObservation(Instant.ofEpochSecond(ttls[i]), deletedAt, present.get(i),
                        seenGoneEarly.get(i)));
                timeline.item(ttls[i], null, deletedAt);
                continue;
            }
            String ttlText = Long.toString(ttls[i]);
            TtlValue ttl = ((TtlValue.Valid) TtlValue.check(AttributeText.n(ttlText), TTL_ATTRIBUTE, now)).ttl();
            String name = ExecutionNames.name(table, ItemKey.of(Map.of(KEY_ATTRIBUTE, AttributeText.s(itemId(i)))), ttl);
            ExecutionTimes times = executionTimes(engine, Arns.execution(runtime.stateMachineArn(), name));
            observations.add(new ExpiryObservation(Instant.ofEpochSecond(ttls[i]), times.deletedAt(), present.get(i),
                    seenGoneEarly.get(i)));
            timeline.item(ttls[i], times.wokeAt(), times.deletedAt());
        }
        if (windowed) {
            for (long second : java.util.Arrays.stream(ttls).distinct().toArray()) {
                runtime.bucketPhases().phases(table, second).ifPresent(p -> timeline.bucket(second, p.invoked(), p.woke(),
                        p.sealed(), p.read(), p.items()));
            }
        }
        return observations;
    }

    /**
     * From one per-item execution's history: when it left its Wait, and when its conditional delete
     * succeeded if it ended {@code Expired}; either {@code null} when it did not happen.
     */
    private record ExecutionTimes(Instant wokeAt, Instant deletedAt) {
    }

    private static ExecutionTimes executionTimes(StepFunctionsEngine engine, String executionArn) {
        List<HistoryEvent> events;
        try {
            // Newest first: the last Wait exit and the last delete, after any retries.
            events = engine.getExecutionHistory(executionArn, 20, null, true).items();
        } catch (StepFunctionsException noSuchExecution) {
            return new ExecutionTimes(null, null);
        }
        Instant wokeAt = events.stream().filter(e -> e.type().equals("WaitStateExited")).map(HistoryEvent::timestamp)
                .findFirst().orElse(null);
        boolean expired = events.stream().anyMatch(e -> e.type().equals("ExecutionSucceeded")
                && ExpiryWorkflow.outcomeOf(e.details().path("output").asText()).filter(ExpiryWorkflow.OUTCOME_EXPIRED::equals).isPresent());
        if (!expired) {
            return new ExecutionTimes(wokeAt, null);
        }
        return new ExecutionTimes(wokeAt, events.stream().filter(e -> e.type().equals("TaskSucceeded"))
                .map(HistoryEvent::timestamp).findFirst().orElse(null));
    }

    private static String itemId(int index) {
        return String.format("item-%07d", index);
    }

    private static int indexOf(String itemId) {
        return Integer.parseInt(itemId.substring("item-".length()));
    }
}
