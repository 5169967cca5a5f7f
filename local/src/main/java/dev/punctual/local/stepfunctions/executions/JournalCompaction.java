package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Keeps a journal proportional to the engine's state, and to what is pending above all: once the writer
 * has rolled to segment {@code N}, a thread of its own compacts what came before in one pass over the
 * state.
 *
 * <ul>
 * <li>What may still change (state machines, running executions) is rewritten whole to
 *     {@code snapshot-N}.</li>
 * <li>A closed execution never changes, so it is written once: the first compaction after it closed files
 *     it in {@code closed-N.log}, with the others closed since the previous compaction, and no later
 *     snapshot holds it. A closed-execution file is deleted by the first compaction that finds none of its
 *     executions still kept ({@code --retain closed-executions}: the oldest closed are forgotten first, so
 *     files die oldest first).</li>
 * </ul>
 *
 * <p>Each file is written as {@code .tmp}, fsynced and renamed; the closed-execution file is published
 * before the snapshot that leaves its executions out, and only then are they marked filed, so a crash at
 * any point leaves every execution in a published file or in a segment that is still there. Then the
 * segments and snapshots older than {@code N} go, and the closed-execution files no kept execution is in.
 *
 * <p>{@link #segmentLimit} says when the writer rolls: once its segment holds 1/{@value #SEGMENT_SHARE}
 * of the state on disk (snapshot plus closed-execution files), so a sample of the journal stays within
 * twice that share of another while the state is steady ({@link #SEGMENT_SHARE} says why twice); but never before the segment holds 1/{@value #MAX_SNAPSHOT_REWRITES_PER_SEGMENT_BYTE}
 * of the snapshot, so each byte appended costs at most {@value #MAX_SNAPSHOT_REWRITES_PER_SEGMENT_BYTE}
 * bytes of snapshot rewritten (plus, once, its closed execution's filing) however large what is pending
 * grows (a bulk import's million pending executions): there the journal swings by up to a fifth of the
 * snapshot instead. One compaction runs at a time; until a {@link Journal.SnapshotSource} is given, none
 * does.
 */
final class JournalCompaction {

    /**
     * The segment rolls at 1/25 of the state on disk. Between two compactions the journal is the state
     * plus the segment, and the state carries the part already forgotten of its oldest closed-execution
     * file, which is at most what one compaction filed, itself at most what one segment appended: so a
     * sample of the journal lies within 2/25 (8 %) of another while the state is steady, inside the 10 %
     * the soak asks for with room for a batch's overshoot.
     */
    static final int SEGMENT_SHARE = 25;
    /**
     * The most snapshot bytes written per byte appended to the journal: 5, which lets the segment share
     * hold while what is pending is up to a fifth of the state on disk (per-item mode's soak: 6,000 short
     * pending executions beside 10,000 closed ones kept, each with its whole history), and bounds the cost
     * when what is pending is all of it (a bulk import's million executions), where the segment then swings
     * the journal by up to a fifth instead.
     */
    static final int MAX_SNAPSHOT_REWRITES_PER_SEGMENT_BYTE = 5;

    private static final System.Logger LOG = System.getLogger(JournalCompaction.class.getName());

    private final JournalDirectory directory;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile Journal.SnapshotSource source;
    private volatile Thread snapshotter;
    private volatile long lastSnapshotBytes;
    private volatile long closedFileBytes;

    JournalCompaction(JournalDirectory directory) {
        this.directory = directory;
    }

    /** Enables compactions; until then segments only grow. */
    void snapshotsFrom(Journal.SnapshotSource source) {
        this.source = source;
    }

    /**
     * Claims the next compaction for the caller, who then rolls the journal to a new segment and
     * {@link #start}s it.
     *
     * @return {@code false} if compactions are not enabled yet or one is still running
     */
    boolean claim() {
        return source != null && running.compareAndSet(false, true);
    }

    /** Compacts into snapshot {@code sequence} on a thread of its own, then completes {@code waiting}. */
    void start(long sequence, List<CompletableFuture<Void>> waiting) {
        Journal.SnapshotSource from = source;
        Thread thread = new Thread(() -> {
            try {
                write(from, sequence);
                waiting.forEach(f -> f.complete(null));
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "Snapshot " + sequence
                        + " failed; the journal segments are kept and replay still works", e);
                waiting.forEach(f -> f.completeExceptionally(e));
            } finally {
                running.set(false);
            }
        }, "sfn-journal-snapshot");
        thread.setDaemon(true);
        snapshotter = thread;
        thread.start();
    }

    /**
     * The segment size at which the writer rolls and the next compaction runs: the larger of
     * {@code floor}, 1/{@value #SEGMENT_SHARE} of the state on disk after the last compaction, and
     * 1/{@value #MAX_SNAPSHOT_REWRITES_PER_SEGMENT_BYTE} of its snapshot.
     */
    long segmentLimit(long floor) {
        long snapshot = lastSnapshotBytes;
        long state = snapshot + closedFileBytes;
        return Math.max(floor, Math.max(state / SEGMENT_SHARE, snapshot / MAX_SNAPSHOT_REWRITES_PER_SEGMENT_BYTE));
    }

    /** Waits for a compaction still running, which would otherwise race whoever removes or reopens the directory. */
    void awaitRunning() throws InterruptedException {
        Thread thread = snapshotter;
        if (thread != null) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
    }

    private void write(Journal.SnapshotSource from, long sequence) throws IOException {
        Path snapshotFile = directory.temporarySnapshot(sequence);
        Path closedFile = directory.temporaryClosedFile(sequence);
        Filing filing = new Filing(new Journal.ClosedFile(sequence));
        long snapshotBytes;
        try {
            snapshotBytes = writeFiles(from, snapshotFile, closedFile, filing);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(snapshotFile);
            Files.deleteIfExists(closedFile);
            throw e;
        }
        if (filing.filed.isEmpty()) {
            Files.delete(closedFile);
        } else {
            directory.publishClosedFile(closedFile, sequence);
            filing.filed.forEach(f -> f.accept(filing.file));
            filing.kept.add(sequence);
        }
        directory.publishSnapshot(snapshotFile, sequence);
        lastSnapshotBytes = snapshotBytes;
        directory.deleteBefore(sequence);
        directory.deleteClosedFilesBefore(sequence, filing.kept);
        closedFileBytes = directory.closedFileBytes(filing.kept);
    }

    /** Writes the snapshot and the closed-execution file, complete and fsynced; returns the snapshot's size. */
    private static long writeFiles(Journal.SnapshotSource from, Path snapshotFile, Path closedFile, Filing filing)
            throws IOException {
        try (FramedFileWriter snapshot = new FramedFileWriter(snapshotFile);
                FramedFileWriter closed = new FramedFileWriter(closedFile)) {
            from.writeSnapshot(new Journal.SnapshotWriter() {
                @Override
                public void snapshot(byte[] record) {
                    snapshot.write(record);
                }

                @Override
                public void fileClosed(byte[] record, Consumer<Journal.ClosedFile> filed) {
                    closed.write(record);
                    filing.filed.add(filed);
                }

                @Override
                public void stillKept(Journal.ClosedFile file) {
                    filing.kept.add(file.sequence());
                }
            });
            if (closed.records() > 0) {
                closed.finish();
            }
            return snapshot.finish();
        }
    }

    /** What one compaction files: the executions it filed (told once their file is durable), and which earlier files stay. */
    private static final class Filing {
        final Journal.ClosedFile file;
        final List<Consumer<Journal.ClosedFile>> filed = new ArrayList<>();
        final Set<Long> kept = new HashSet<>();

        Filing(Journal.ClosedFile file) {
            this.file = file;
        }
    }
}
