package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * An append-only journal in numbered segment files plus compactions (a snapshot of what may still change,
 * a file of the executions closed since the last one), in one directory.
 *
 * <p>One writer thread does group commit: it takes every record queued while the previous batch was
 * being written, writes them in one call ({@link JournalFrames}) and fsyncs once
 * ({@code FileChannel.force}) before completing their futures, so a caller waiting on its future
 * (StartExecution, StopExecution) answers only once its record is on disk, and a burst of callers
 * shares one fsync.
 *
 * <p>When a segment passes its limit ({@link JournalCompaction#segmentLimit}: a twenty-fifth of the state
 * on disk, a minimum when that is smaller) the writer rolls to a new one and {@link JournalCompaction}
 * rewrites what is pending, files what closed, and deletes what that replaces; so the journal on disk
 * follows the state (pending and kept executions), within 2/25 of it while it is steady, and not how much
 * has ever run.
 * Restart replays what is there ({@link JournalReplay}) and always appends to a fresh segment
 * ({@link JournalDirectory}).
 */
final class FileJournal implements Journal {

    private static final System.Logger LOG = System.getLogger(FileJournal.class.getName());
    private static final int MAX_BATCH_RECORDS = 8192;

    private final JournalDirectory directory;
    private final JournalCompaction compaction;
    private final long minSegmentBytes;
    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean closing;
    private FileChannel channel;
    private long segmentSequence;
    private long segmentBytes;

    /** What the writer is asked to do; {@code done} completes once it is done. */
    private record Pending(Kind kind, byte[] record, CompletableFuture<Void> done) {
    }

    private enum Kind {
        /** Write {@code record}; done once it is durable. */
        RECORD,
        /** Roll and compact now; done once the compaction has finished. */
        SNAPSHOT,
        /** Done once the records before it are durable and the roll they called for, if any, has started. */
        SETTLE,
        /** Queued by {@link #close} to wake the writer, which then writes what is queued and stops. */
        CLOSE
    }

    private static final Pending CLOSE = new Pending(Kind.CLOSE, null, null);

    private FileJournal(JournalDirectory directory, long nextSequence, long segmentLimitBytes) {
        this.directory = directory;
        this.compaction = new JournalCompaction(directory);
        this.minSegmentBytes = segmentLimitBytes;
        this.segmentSequence = nextSequence;
        this.channel = directory.openSegment(nextSequence);
        this.writer = new Thread(this::writeLoop, "sfn-journal-writer");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    /** What {@link #open} found: the journal to append to and how much was replayed. */
    record Opened(FileJournal journal, long recordsReplayed, boolean snapshotFound) {
    }

    /**
     * Replays the directory's snapshot, closed-execution files and segments into {@code replay}, then opens
     * a fresh segment.
     *
     * @param segmentLimitBytes the least segment size after which a compaction runs
     */
    static Opened open(Path path, Journal.Replayer replay, long segmentLimitBytes) {
        JournalDirectory directory = new JournalDirectory(path);
        try {
            directory.prepare();
            JournalReplay.Replayed replayed = JournalReplay.replay(directory, replay);
            FileJournal journal = new FileJournal(directory, replayed.lastSequence() + 1, segmentLimitBytes);
            return new Opened(journal, replayed.records(), replayed.snapshotFound());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open the Step Functions data directory " + path, e);
        }
    }

    /** Enables snapshots; until then segments only grow. */
    void snapshotsFrom(SnapshotSource source) {
        compaction.snapshotsFrom(source);
    }

    /** Rolls to a new segment and snapshots the state now, e.g. after a restart replayed a long journal. */
    CompletableFuture<Void> snapshotNow() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        queue.add(new Pending(Kind.SNAPSHOT, null, done));
        return done;
    }

    /**
     * Waits until every record appended before this call is durable and the compaction they triggered, if
     * any, has finished: the directory then holds what the compaction rule says, which is what a test of
     * that rule measures.
     */
    void settle() throws InterruptedException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        queue.add(new Pending(Kind.SETTLE, null, done));
        done.join();
        compaction.awaitRunning();
    }

    @Override
    public CompletableFuture<Void> append(byte[] record) {
        if (closing) {
            return CompletableFuture.failedFuture(new IllegalStateException("The journal is closed"));
        }
        CompletableFuture<Void> durable = new CompletableFuture<>();
        queue.add(new Pending(Kind.RECORD, record, durable));
        return durable;
    }

    @Override
    public void close() {
        closing = true;
        // Woken by a marker, never by an interrupt: an interrupt landing in a FileChannel write or
        // force closes the channel, and the records of that batch and of every later one are lost.
        queue.add(CLOSE);
        try {
            writer.join(TimeUnit.SECONDS.toMillis(30));
            channel.close();
            compaction.awaitRunning();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not close the journal segment", e);
        }
    }

    private void writeLoop() {
        List<Pending> batch = new ArrayList<>();
        while (true) {
            try {
                if (closing && queue.isEmpty()) {
                    return;
                }
                batch.add(queue.take());
                queue.drainTo(batch, MAX_BATCH_RECORDS);
                batch.removeIf(p -> p == CLOSE);
                if (!batch.isEmpty()) {
                    writeBatch(batch);
                }
            } catch (InterruptedException e) {
                // Nothing here interrupts the writer; if something else does, write what is queued and stop.
                closing = true;
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "Journal write failed; " + batch.size()
                        + " records are not durable", e);
                batch.forEach(p -> p.done().completeExceptionally(e));
            }
            batch.clear();
        }
    }

    private void writeBatch(List<Pending> batch) throws IOException {
        int bytes = 0;
        boolean snapshotRequested = false;
        for (Pending p : batch) {
            if (p.kind() == Kind.SNAPSHOT) {
                snapshotRequested = true;
            } else if (p.kind() == Kind.RECORD) {
                bytes += JournalFrames.framedSize(p.record());
            }
        }
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        CRC32C crc = new CRC32C();
        for (Pending p : batch) {
            if (p.kind() == Kind.RECORD) {
                JournalFrames.put(buffer, p.record(), crc);
            }
        }
        buffer.flip();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        channel.force(false);
        segmentBytes += bytes;
        for (Pending p : batch) {
            if (p.kind() == Kind.RECORD) {
                p.done().complete(null);
            }
        }
        if (snapshotRequested || segmentBytes >= compaction.segmentLimit(minSegmentBytes)) {
            rollAndSnapshot(batch);
        }
        for (Pending p : batch) {
            if (p.kind() == Kind.SETTLE) {
                p.done().complete(null);
            }
        }
    }

    private void rollAndSnapshot(List<Pending> batch) throws IOException {
        List<CompletableFuture<Void>> waiting = batch.stream().filter(p -> p.kind() == Kind.SNAPSHOT)
                .map(Pending::done).toList();
        if (!compaction.claim()) {
            // A snapshot in progress covers this request's records too once it ends; re-ask later.
            waiting.forEach(f -> queue.add(new Pending(Kind.SNAPSHOT, null, f)));
            return;
        }
        channel.close();
        long snapshotSequence = segmentSequence + 1;
        segmentSequence = snapshotSequence;
        segmentBytes = 0;
        channel = directory.openSegment(snapshotSequence);
        compaction.start(snapshotSequence, waiting);
    }
}
