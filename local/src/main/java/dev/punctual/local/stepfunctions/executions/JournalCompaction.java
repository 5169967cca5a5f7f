package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Keeps a journal from growing without end: once the writer has rolled to segment {@code N}, a thread
 * of its own writes the engine's whole state to {@code snapshot-N} (temporary file, fsync, atomic
 * rename), then deletes the segments and snapshots older than {@code N}, which the snapshot replaces.
 * One snapshot runs at a time; until a {@link Journal.SnapshotSource} is given, none does.
 */
final class JournalCompaction {

    private static final System.Logger LOG = System.getLogger(JournalCompaction.class.getName());
    private static final int BUFFER_BYTES = 1 << 20;

    private final JournalDirectory directory;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile Journal.SnapshotSource source;
    private volatile Thread snapshotter;
    private volatile long lastSnapshotBytes;

    JournalCompaction(JournalDirectory directory) {
        this.directory = directory;
    }

    /** Enables snapshots; until then segments only grow. */
    void snapshotsFrom(Journal.SnapshotSource source) {
        this.source = source;
    }

    /**
     * Claims the next snapshot for the caller, who then rolls the journal to a new segment and
     * {@link #start}s it.
     *
     * @return {@code false} if snapshots are not enabled yet or one is still being written
     */
    boolean claim() {
        return source != null && running.compareAndSet(false, true);
    }

    /** Writes snapshot {@code sequence} on a thread of its own, then completes {@code waiting}. */
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

    /** The size of the last snapshot written, or 0 before the first: what the engine's state takes on disk. */
    long lastSnapshotBytes() {
        return lastSnapshotBytes;
    }

    /** Waits for a snapshot still being written, which would otherwise race whoever removes or reopens the directory. */
    void awaitRunning() throws InterruptedException {
        Thread thread = snapshotter;
        if (thread != null) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
    }

    private void write(Journal.SnapshotSource from, long sequence) throws IOException {
        Path temporary = directory.temporarySnapshot(sequence);
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
            CRC32C crc = new CRC32C();
            Consumer<byte[]> sink = record -> {
                try {
                    int framed = JournalFrames.framedSize(record);
                    if (buffer.remaining() < framed) {
                        drain(out, buffer);
                    }
                    if (framed > buffer.capacity()) {
                        ByteBuffer big = ByteBuffer.allocate(framed);
                        JournalFrames.put(big, record, crc);
                        drain(out, big);
                    } else {
                        JournalFrames.put(buffer, record, crc);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            };
            from.writeSnapshot(sink);
            sink.accept(JournalCodec.snapshotEnd());
            drain(out, buffer);
            out.force(true);
            lastSnapshotBytes = out.size();
        }
        directory.publishSnapshot(temporary, sequence);
        directory.deleteBefore(sequence);
    }

    private static void drain(FileChannel out, ByteBuffer buffer) throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
        buffer.clear();
    }
}
