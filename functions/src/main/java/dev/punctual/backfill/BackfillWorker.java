package dev.punctual.backfill;

import dev.punctual.expiry.Reason;
import dev.punctual.expiry.Sleeper;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.names.BackfillExecutionName;
import dev.punctual.statemachine.BackfillWorkflow;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The backfill workflow's three steps, free of Lambda and JSON: prepare a run, scan and schedule one
 * page of one segment, finish the run (or name the successor that carries it on).
 *
 * <p><b>Resuming.</b> A segment's position lives in the {@link ProgressStore}, never in the execution:
 * each page starts from the position saved last, and its position is saved only once every item of
 * the page is scheduled. A page whose scheduling failed is retried whole, and an execution stopped
 * halfway and started again reads the same positions, so at most one page per segment is scheduled
 * twice, which the mode's scheduling makes harmless (execution names; index chunk digests and bucket
 * names). Two executions working on one run at once cooperate: a save names the page count it
 * started from, and the one that loses reads the other's position next.
 */
public final class BackfillWorker {

    private final TableReader tables;
    private final ProgressStore progress;
    private final ModeScheduling scheduling;
    private final Clock clock;
    private final Sleeper sleeper;
    private final ThrottleBackoff backoff;
    private final BackfillListener listener;
    private final Optional<String> onlyTable;
    private final Optional<String> defaultTtlAttribute;

    /**
     * @param sleeper what the StartExecution pacing waits on
     * @param onlyTable the one table this worker may backfill (the construct's), or empty for any
     * @param defaultTtlAttribute the TTL attribute when the input names none, before DescribeTimeToLive
     */
    public BackfillWorker(TableReader tables, ProgressStore progress, ModeScheduling scheduling, Clock clock,
            Sleeper sleeper, ThrottleBackoff backoff, BackfillListener listener, Optional<String> onlyTable,
            Optional<String> defaultTtlAttribute) {
        this.tables = Objects.requireNonNull(tables, "tables");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.scheduling = Objects.requireNonNull(scheduling, "scheduling");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.onlyTable = Objects.requireNonNull(onlyTable, "onlyTable");
        this.defaultTtlAttribute = Objects.requireNonNull(defaultTtlAttribute, "defaultTtlAttribute");
    }

    /** What {@link #prepare} settled on: the run, the segments still to scan, pages per segment in this execution. */
    public record Prepared(BackfillRun run, boolean resumed, List<Integer> segmentsLeft, int pagesPerSegment) {
        public Prepared {
            segmentsLeft = List.copyOf(segmentsLeft);
        }
    }

    /** What one page did: its counts, the segment's after it, and whether the segment is done. */
    public record PageResult(int segment, BackfillCounts page, SegmentProgress segmentAfter, boolean saved) {
        /** Whether the segment has been scanned to its end. */
        public boolean done() {
            return segmentAfter.done();
        }
    }

    /** What {@link #finish} found: every segment done, and the run's totals so far. */
    public record Finished(BackfillRun run, boolean complete, int segmentsDone, BackfillCounts totals) {
    }

    /**
     * Resumes the table's unfinished run, or begins a new one (none yet, the last one finished, or
     * {@link BackfillRequest#restart()}), and lists its segments not yet done.
     *
     * @param executionArn the execution preparing, from which a new run's id is derived
     * @throws BackfillInputException when the table is not this worker's, does not exist, or has no TTL to read
     */
    public Prepared prepare(BackfillRequest request, String executionArn) {
        String table = request.table();
        onlyTable.filter(only -> !only.equals(table)).ifPresent(only -> {
            throw new BackfillInputException("This backfill workflow serves table " + only + ", not " + table
                    + "; start the backfill workflow of the Punctual construct attached to " + table);
        });
        Optional<BackfillRun> current = progress.run(table);
        BackfillRun run;
        boolean resumed = current.isPresent() && current.get().unfinished() && !request.restart();
        if (resumed) {
            run = current.get();
        } else {
            BackfillRun fresh = newRun(request, executionArn);
            run = progress.begin(fresh, current.map(BackfillRun::id)) ? fresh
                    : progress.run(table).orElseThrow(() -> new IllegalStateException("the run of " + table
                            + " changed while it began and is gone; start the backfill again"));
            resumed = run != fresh;
        }
        List<Integer> left = new ArrayList<>();
        List<SegmentProgress> saved = progress.segments(table);
        for (int segment = 0; segment < run.segments(); segment++) {
            int number = segment;
            boolean done = saved.stream().anyMatch(s -> s.segment() == number && s.runId().equals(run.id()) && s.done());
            if (!done) {
                left.add(segment);
            }
        }
        listener.prepared(run, resumed, left.size());
        return new Prepared(run, resumed, left, BackfillWorkflow.pagesPerSegment(run.segments()));
    }

    private BackfillRun newRun(BackfillRequest request, String executionArn) {
        TableReader.TableShape shape = tables.describe(request.table());
        String ttlAttribute = request.ttlAttribute().or(() -> defaultTtlAttribute).or(shape::ttlAttribute)
                .orElseThrow(() -> new BackfillInputException("Table " + request.table() + " has no TTL enabled"
                        + " (DescribeTimeToLive names no attribute); enable TTL on it, or name the attribute with \""
                        + BackfillWorkflow.TTL_ATTRIBUTE + "\" in the input"));
        return new BackfillRun(BackfillExecutionName.runId(clock.instant(), executionArn), request.table(),
                request.segments(), ttlAttribute, shape.keyAttributes(), request.pageSize(), request.startsPerSecond(),
                scheduling.mode().label(), clock.instant(), null);
    }

    /**
     * Scans the next page of {@code segment} from its saved position, schedules every item the mode's
     * way, and saves the position after it.
     *
     * @param backoffBudget how long throttled Step Functions calls may be retried within this page
     * @throws BackfillPageException when an item could not be scheduled: nothing is saved, the page is retried whole
     */
    public PageResult scanPage(BackfillRun run, int segment, Duration backoffBudget) {
        if (segment < 0 || segment >= run.segments()) {
            throw new BackfillInputException("segment " + segment + " is not one of the run's 0 to " + (run.segments() - 1));
        }
        SegmentProgress before = progress.segment(run.table(), segment).filter(s -> s.runId().equals(run.id()))
                .orElse(SegmentProgress.start(run.id(), segment));
        if (before.done()) {
            return new PageResult(segment, BackfillCounts.NONE, before, false);
        }
        TableReader.ScannedPage page = tables.scan(run.table(), segment, run.segments(), run.keyAttributes(),
                run.ttlAttribute(), before.resumeAfter().orElse(null), run.pageLimit());
        List<StreamChange> changes = new ArrayList<>(page.items().size());
        for (int i = 0; i < page.items().size(); i++) {
            TableReader.ScannedItem item = page.items().get(i);
            changes.add(StreamChange.existingItem(run.table(), item.key(), item.ttl(), Integer.toString(i)));
        }
        List<ItemOutcome> outcomes = changes.isEmpty() ? List.of() : scheduling.schedule(run.ttlAttribute(), changes,
                new RateLimiter(run.segmentStartsPerSecond(), clock, sleeper), backoff.within(backoffBudget));

        long scheduled = 0;
        long deletedNow = 0;
        long failed = 0;
        RuntimeException firstFailure = null;
        Map<Reason, Long> skipped = new EnumMap<>(Reason.class);
        List<Integer> badItems = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            ItemOutcome outcome = outcomes.get(i);
            switch (outcome.kind()) {
                case SCHEDULED -> scheduled++;
                case DELETED_NOW -> deletedNow++;
                case SKIPPED -> {
                    skipped.merge(outcome.reason(), 1L, Long::sum);
                    if (outcome.reason().warn()) {
                        badItems.add(i);
                    }
                }
                case FAILED -> {
                    failed++;
                    firstFailure = firstFailure == null ? outcome.error() : firstFailure;
                }
            }
        }
        if (failed > 0) {
            throw new BackfillPageException(run.table(), segment, failed, changes.size(), firstFailure);
        }
        BackfillCounts counts = new BackfillCounts(changes.size(), scheduled, deletedNow,
                skipped.values().stream().mapToLong(Long::longValue).sum());
        SegmentProgress after = before.after(page.lastKey(), counts);
        if (!progress.save(run.table(), after, before.pages())) {
            listener.pageOverlapped(run, segment);
            return new PageResult(segment, counts, progress.segment(run.table(), segment).orElse(after), false);
        }
        for (int i : badItems) {
            ItemOutcome outcome = outcomes.get(i);
            listener.itemSkipped(run, changes.get(i).key(), outcome.reason(), outcome.detail());
        }
        listener.pageSaved(run, after, counts, skipped);
        return new PageResult(segment, counts, after, true);
    }

    /**
     * Whether every segment of {@code run} is done; if so the run is marked finished, so the next start
     * begins a new one.
     */
    public Finished finish(BackfillRun run) {
        BackfillCounts totals = BackfillCounts.NONE;
        int done = 0;
        for (SegmentProgress segment : progress.segments(run.table())) {
            if (segment.runId().equals(run.id()) && segment.segment() < run.segments()) {
                totals = totals.plus(segment.counts());
                done += segment.done() ? 1 : 0;
            }
        }
        boolean complete = done == run.segments();
        if (complete) {
            progress.finish(run.table(), run.id(), clock.instant());
            listener.finished(run, totals);
        }
        return new Finished(run, complete, done, totals);
    }

    /** The name of the execution that carries {@code run} on after {@code executionArn}. */
    public static String successorName(BackfillRun run, String executionArn) {
        return BackfillExecutionName.successor(run.table(), run.id(), executionArn).toString();
    }
}
