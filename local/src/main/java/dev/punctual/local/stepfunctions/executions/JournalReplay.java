package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Reading a journal back on restart: the newest complete snapshot, then the segments from its number
 * on, each up to its first damaged frame. A snapshot cut short by a crash is passed over for an older
 * one, or for the segments alone.
 */
final class JournalReplay {

    private static final System.Logger LOG = System.getLogger(JournalReplay.class.getName());

    /**
     * What replay read.
     *
     * @param records records handed to the consumer
     * @param snapshotFound whether a complete snapshot was read
     * @param lastSequence the highest segment or snapshot number in the directory; {@code -1} if none
     */
    record Replayed(long records, boolean snapshotFound, long lastSequence) {
    }

    private JournalReplay() {
    }

    /** Hands every durable record of {@code directory}, in order, to {@code replay}. */
    static Replayed replay(JournalDirectory directory, Consumer<byte[]> replay) throws IOException {
        long snapshotSequence = -1;
        long replayed = 0;
        Optional<Path> snapshot = newestCompleteSnapshot(directory);
        if (snapshot.isPresent()) {
            snapshotSequence = JournalDirectory.snapshotSequence(snapshot.get());
            replayed += JournalFrames.read(snapshot.get(), replay, true);
        }
        long last = snapshotSequence;
        for (Path segment : directory.segments()) {
            long sequence = JournalDirectory.segmentSequence(segment);
            if (sequence >= snapshotSequence) {
                replayed += JournalFrames.read(segment, replay, false);
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
