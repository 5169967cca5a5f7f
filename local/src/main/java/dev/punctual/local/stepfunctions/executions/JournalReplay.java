package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reading a journal back on restart: the newest complete snapshot (the state machines and what was
 * running), then every closed-execution file, oldest first, then the segments from the snapshot's number
 * on, each up to its first damaged frame. A snapshot cut short by a crash is passed over for an older
 * one, or for the segments alone. The closed-execution files come after the snapshot so that their
 * executions find their state machines, and before the segments, which may overlap them (a file written
 * by a compaction whose snapshot a crash cut short): replay skips what it already has.
 */
final class JournalReplay {

    private static final System.Logger LOG = System.getLogger(JournalReplay.class.getName());

    /**
     * What replay read.
     *
     * @param records records handed to the consumer
     * @param snapshotFound whether a complete snapshot was read
     * @param lastSequence the highest segment, snapshot or closed-execution file number in the directory;
     *     {@code -1} if none
     */
    record Replayed(long records, boolean snapshotFound, long lastSequence) {
    }

    private JournalReplay() {
    }

    /** Hands every durable record of {@code directory}, in order, to {@code replay}. */
    static Replayed replay(JournalDirectory directory, Journal.Replayer replay) throws IOException {
        long snapshotSequence = -1;
        long replayed = 0;
        Optional<Path> snapshot = newestCompleteSnapshot(directory);
        if (snapshot.isPresent()) {
            snapshotSequence = JournalDirectory.snapshotSequence(snapshot.get());
            replayed += JournalFrames.read(snapshot.get(), record -> replay.replay(record, null), true);
        }
        long last = snapshotSequence;
        for (Path closedFile : directory.closedFiles()) {
            long sequence = JournalDirectory.closedFileSequence(closedFile);
            Journal.ClosedFile filedIn = new Journal.ClosedFile(sequence);
            replayed += JournalFrames.read(closedFile, record -> replay.replay(record, filedIn), true);
            last = Math.max(last, sequence);
        }
        for (Path segment : directory.segments()) {
            long sequence = JournalDirectory.segmentSequence(segment);
            if (sequence >= snapshotSequence) {
                replayed += JournalFrames.read(segment, record -> replay.replay(record, null), false);
            }
            last = Math.max(last, sequence);
        }
        return new Replayed(replayed, snapshot.isPresent(), last);
    }

    private static Optional<Path> newestCompleteSnapshot(JournalDirectory directory) throws IOException {
        List<Path> snapshots = directory.snapshots();
        for (int i = snapshots.size() - 1; i >= 0; i--) {
            if (JournalFrames.endsWithSnapshotEnd(snapshots.get(i))) {
                return Optional.of(snapshots.get(i));
            }
            LOG.log(System.Logger.Level.WARNING, "Ignoring incomplete snapshot " + snapshots.get(i).getFileName());
        }
        return Optional.empty();
    }
}
