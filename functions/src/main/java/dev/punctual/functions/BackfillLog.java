package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import dev.punctual.backfill.BackfillCounts;
import dev.punctual.backfill.BackfillListener;
import dev.punctual.backfill.BackfillRun;
import dev.punctual.backfill.SegmentProgress;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Reason;
import dev.punctual.names.Digests;
import dev.punctual.statemachine.BackfillWorkflow;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backfill function's log: one line per page (table, run, segment, the page's counts and the
 * segment's, skipped items by reason), one WARN line per item skipped for bad data (its key digest
 * and the reason, never key values), one line when a run is prepared and when it finishes. Items that
 * are scheduled get no line of their own: a table of millions would log millions of lines.
 */
final class BackfillLog implements BackfillListener {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillFunction.class);

    @Override
    public void prepared(BackfillRun run, boolean resumed, int segmentsLeft) {
        LOG.info(resumed ? "backfill run resumed" : "backfill run begun",
                entry("table", run.table()),
                entry("run", run.id()),
                entry("mode", run.mode()),
                entry("ttlAttribute", run.ttlAttribute()),
                entry(BackfillWorkflow.SEGMENTS, run.segments()),
                entry("segmentsLeft", segmentsLeft),
                entry(BackfillWorkflow.STARTS_PER_SECOND, run.startsPerSecond()));
    }

    @Override
    public void pageSaved(BackfillRun run, SegmentProgress segment, BackfillCounts page, Map<Reason, Long> skipped) {
        LOG.info(segment.done() ? "backfill segment done" : "backfill page scheduled",
                entry("table", run.table()),
                entry("run", run.id()),
                entry(BackfillWorkflow.SEGMENT, segment.segment()),
                entry(BackfillWorkflow.PAGE, counts(page)),
                entry(BackfillWorkflow.SEGMENT_TOTALS, counts(segment.counts())),
                entry("skippedBy", new TreeMap<>(skipped)));
    }

    @Override
    public void pageOverlapped(BackfillRun run, int segment) {
        LOG.info("backfill page scheduled, but another execution of the run saved this segment first; its position stands",
                entry("table", run.table()),
                entry("run", run.id()),
                entry(BackfillWorkflow.SEGMENT, segment));
    }

    @Override
    public void itemSkipped(BackfillRun run, ItemKey key, Reason reason, String detail) {
        LOG.warn("backfill skipped an item: " + detail,
                entry("table", run.table()),
                entry("keyDigest", Digests.keyDigest(run.table(), key)),
                entry("reason", reason.name()),
                entry("run", run.id()));
    }

    @Override
    public void finished(BackfillRun run, BackfillCounts totals) {
        LOG.info("backfill run finished",
                entry("table", run.table()),
                entry("run", run.id()),
                entry("totals", counts(totals)));
    }

    static Map<String, Long> counts(BackfillCounts counts) {
        return Map.of(BackfillWorkflow.SCANNED, counts.scanned(), BackfillWorkflow.SCHEDULED, counts.scheduled(),
                BackfillWorkflow.DELETED_NOW, counts.deletedNow(), BackfillWorkflow.SKIPPED, counts.skipped());
    }
}
