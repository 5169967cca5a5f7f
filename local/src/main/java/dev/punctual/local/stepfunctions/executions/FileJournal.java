package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * An append-only journal in numbered segment files plus periodic snapshots, in one directory.
 *
 * <p>Every record is framed as {@code [int length][int CRC32C][payload]}, so a record torn by a
 * crash (kill -9 mid-write) fails its check and replay stops there: the tail that never became
 * durable is dropped, nothing before it is. One writer thread does group commit: it takes every
 * record queued while the previous batch was being written, writes them in one call and fsyncs once
 * ({@code FileChannel.force}) before completing their futures, so a caller waiting on its future
 * (StartExecution, StopExecution) answers only once its record is on disk, and a burst of callers
 * shares one fsync.
 *
 * <p>When a segment passes the size limit the writer starts a new one and a snapshot thread writes
 * the engine's whole state to {@code snapshot-N} (temporary file, fsync, atomic rename); segments
 * older than {@code N} and older snapshots are then deleted. Restart replays the newest complete
 * snapshot and the segments from {@code N} on, and always appends to a fresh segment.
 */
final class FileJournal implements Journal {

    private static final System.Logger LOG = System.getLogger(FileJournal.class.getName());
    private static final Pattern SEGMENT = Pattern.compile("journal-(\\d{16})\\.log");
    private static final Pattern SNAPSHOT = Pattern.compile("snapshot-(\\d{16})\\.snap");
    private static final int MAX_RECORD = 64 * 1024 * 1024;
    private static final int MAX_BATCH_RECORDS = 8192;

    private final Path directory;
    private final long segmentLimitBytes;
    private final boolean fsync;
    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private final AtomicBoolean snapshotRunning = new AtomicBoolean();
    private volatile SnapshotSource snapshotSource;
    private volatile boolean closing;
    private volatile Thread snapshotter;
    private FileChannel channel;
    private long segmentSequence;
    private long segmentBytes;

    private record Pending(byte[] record, CompletableFuture<Void> durable) {
    }

    /** Queued by {@link #close} to wake the writer, which then writes what is queued and stops. */
    private static final Pending CLOSE = new Pending(null, null);

    private FileJournal(Path directory, long nextSequence, long segmentLimitBytes, boolean fsync) {
        this.directory = directory;
        this.segmentLimitBytes = segmentLimitBytes;
        this.fsync = fsync;
        this.segmentSequence = nextSequence;
        this.channel = openSegment(nextSequence);
        this.writer = new Thread(this::writeLoop, "sfn-journal-writer");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    /** What {@link #open} found: the journal to append to and how much was replayed. */
    record Opened(FileJournal journal, long recordsReplayed, boolean snapshotFound) {
    }

    /**
     * Replays the directory's snapshot and segments into {@code replay}, then opens a fresh segment.
     *
     * @param segmentLimitBytes segment size after which a snapshot is taken
     * @param fsync whether each batch is forced to disk (turn off only for throw-away benchmarks)
     */
    static Opened open(Path directory, Consumer<byte[]> replay, long segmentLimitBytes, boolean fsync) {
        try {
            Files.createDirectories(directory);
            deleteTemporaries(directory);
            long snapshotSequence = -1;
            long replayed = 0;
            Optional<Path> snapshot = newestCompleteSnapshot(directory);
            if (snapshot.isPresent()) {
                snapshotSequence = sequenceOf(snapshot.get(), SNAPSHOT);
                replayed += readRecords(snapshot.get(), replay, true);
            }
            long last = snapshotSequence;
            for (Path segment : files(directory, SEGMENT)) {
                long sequence = sequenceOf(segment, SEGMENT);
                if (sequence >= snapshotSequence) {
                    replayed += readRecords(segment, replay, false);
                }
                last = Math.max(last, sequence);
            }
            FileJournal journal = new FileJournal(directory, last + 1, segmentLimitBytes, fsync);
            return new Opened(journal, replayed, snapshot.isPresent());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open the Step Functions data directory " + directory, e);
        }
    }

    /** Enables snapshots; until then segments only grow. */
    void snapshotsFrom(SnapshotSource source) {
        this.snapshotSource = source;
    }

    /** Rolls to a new segment and snapshots the state now, e.g. after a restart replayed a long journal. */
    CompletableFuture<Void> snapshotNow() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        queue.add(new Pending(null, done));
        return done;
    }

    @Override
    public CompletableFuture<Void> append(byte[] record) {
        if (closing) {
            return CompletableFuture.failedFuture(new IllegalStateException("The journal is closed"));
        }
        CompletableFuture<Void> durable = new CompletableFuture<>();
        queue.add(new Pending(record, durable));
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
            Thread running = snapshotter;
            if (running != null) {
                // A snapshot still being written would otherwise race whoever removes or reopens the directory.
                running.join(TimeUnit.SECONDS.toMillis(60));
            }
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
                batch.forEach(p -> p.durable().completeExceptionally(e));
            }
            batch.clear();
        }
    }

    private void writeBatch(List<Pending> batch) throws IOException {
        int bytes = 0;
        boolean snapshotRequested = false;
        for (Pending p : batch) {
            if (p.record() == null) {
                snapshotRequested = true;
            } else {
                bytes += 8 + p.record().length;
            }
        }
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        CRC32C crc = new CRC32C();
        for (Pending p : batch) {
            if (p.record() != null) {
                crc.reset();
                crc.update(p.record());
                buffer.putInt(p.record().length).putInt((int) crc.getValue()).put(p.record());
            }
        }
        buffer.flip();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        if (fsync) {
            channel.force(false);
        }
        segmentBytes += bytes;
        for (Pending p : batch) {
            if (p.record() != null) {
                p.durable().complete(null);
            }
        }
        if (snapshotRequested || segmentBytes >= segmentLimitBytes) {
            rollAndSnapshot(batch);
        }
    }

    private void rollAndSnapshot(List<Pending> batch) throws IOException {
        List<CompletableFuture<Void>> waiting = batch.stream().filter(p -> p.record() == null)
                .map(Pending::durable).toList();
        SnapshotSource source = snapshotSource;
        if (source == null || !snapshotRunning.compareAndSet(false, true)) {
            // A snapshot in progress covers this request's records too once it ends; re-ask later.
            waiting.forEach(f -> queue.add(new Pending(null, f)));
            return;
        }
        channel.close();
        long snapshotSequence = segmentSequence + 1;
        segmentSequence = snapshotSequence;
        segmentBytes = 0;
        channel = openSegment(snapshotSequence);
        Thread thread = new Thread(() -> {
            try {
                writeSnapshot(source, snapshotSequence);
                waiting.forEach(f -> f.complete(null));
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "Snapshot " + snapshotSequence
                        + " failed; the journal segments are kept and replay still works", e);
                waiting.forEach(f -> f.completeExceptionally(e));
            } finally {
                snapshotRunning.set(false);
            }
        }, "sfn-journal-snapshot");
        thread.setDaemon(true);
        snapshotter = thread;
        thread.start();
    }

    private void writeSnapshot(SnapshotSource source, long sequence) throws IOException {
        Path temporary = directory.resolve(String.format("snapshot-%016d.tmp", sequence));
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
            CRC32C crc = new CRC32C();
            Consumer<byte[]> sink = record -> {
                try {
                    if (buffer.remaining() < 8 + record.length) {
                        drain(out, buffer);
                    }
                    crc.reset();
                    crc.update(record);
                    if (record.length + 8 > buffer.capacity()) {
                        ByteBuffer big = ByteBuffer.allocate(record.length + 8);
                        big.putInt(record.length).putInt((int) crc.getValue()).put(record);
                        drain(out, big);
                    } else {
                        buffer.putInt(record.length).putInt((int) crc.getValue()).put(record);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            };
            source.writeSnapshot(sink);
            sink.accept(JournalCodec.snapshotEnd());
            drain(out, buffer);
            out.force(true);
        }
        Path target = directory.resolve(String.format("snapshot-%016d.snap", sequence));
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
        }
        syncDirectory();
        for (Path old : files(directory, SEGMENT)) {
            if (sequenceOf(old, SEGMENT) < sequence) {
                Files.deleteIfExists(old);
            }
        }
        for (Path old : files(directory, SNAPSHOT)) {
            if (sequenceOf(old, SNAPSHOT) < sequence) {
                Files.deleteIfExists(old);
            }
        }
    }

    private static void drain(FileChannel out, ByteBuffer buffer) throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
        buffer.clear();
    }

    private FileChannel openSegment(long sequence) {
        try {
            FileChannel segment = FileChannel.open(directory.resolve(String.format("journal-%016d.log", sequence)),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            syncDirectory();
            return segment;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create journal segment " + sequence + " in " + directory, e);
        }
    }

    private void syncDirectory() throws IOException {
        if (!fsync) {
            return;
        }
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open a directory for fsync; the files themselves are forced.
            LOG.log(System.Logger.Level.DEBUG, "Directory fsync not supported here: " + e.getMessage());
        }
    }

    /**
     * Reads framed records until the end or the first damaged frame.
     *
     * @return how many records were read
     */
    static long readRecords(Path file, Consumer<byte[]> replay, boolean snapshot) throws IOException {
        byte[] content = Files.readAllBytes(file);
        ByteBuffer in = ByteBuffer.wrap(content);
        CRC32C crc = new CRC32C();
        long count = 0;
        while (in.remaining() >= 8) {
            int length = in.getInt();
            int checksum = in.getInt();
            if (length < 0 || length > MAX_RECORD || length > in.remaining()) {
                in.position(in.position() - 8);
                break;
            }
            crc.reset();
            crc.update(content, in.position(), length);
            if ((int) crc.getValue() != checksum) {
                in.position(in.position() - 8);
                break;
            }
            byte[] record = new byte[length];
            in.get(record);
            if (snapshot && record.length == 1 && record[0] == JournalCodec.SNAPSHOT_END) {
                return count;
            }
            replay.accept(record);
            count++;
        }
        if (in.hasRemaining()) {
            LOG.log(System.Logger.Level.WARNING, "Ignoring " + in.remaining() + " bytes of " + file.getFileName()
                    + " after its last intact record (a write torn by a crash)");
        }
        return count;
    }

    private static Optional<Path> newestCompleteSnapshot(Path directory) throws IOException {
        List<Path> snapshots = new ArrayList<>(files(directory, SNAPSHOT));
        for (int i = snapshots.size() - 1; i >= 0; i--) {
            if (endsWithSnapshotEnd(snapshots.get(i))) {
                return Optional.of(snapshots.get(i));
            }
            LOG.log(System.Logger.Level.WARNING, "Ignoring incomplete snapshot " + snapshots.get(i).getFileName());
        }
        return Optional.empty();
    }

    private static boolean endsWithSnapshotEnd(Path snapshot) throws IOException {
        boolean[] ended = {false};
        byte[] content = Files.readAllBytes(snapshot);
        ByteBuffer in = ByteBuffer.wrap(content);
        CRC32C crc = new CRC32C();
        while (in.remaining() >= 8) {
            int length = in.getInt();
            int checksum = in.getInt();
            if (length < 0 || length > in.remaining()) {
                return false;
            }
            crc.reset();
            crc.update(content, in.position(), length);
            if ((int) crc.getValue() != checksum) {
                return false;
            }
            ended[0] = length == 1 && content[in.position()] == JournalCodec.SNAPSHOT_END;
            in.position(in.position() + length);
        }
        return ended[0];
    }

    private static void deleteTemporaries(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path p : entries.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static List<Path> files(Path directory, Pattern pattern) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(p -> pattern.matcher(p.getFileName().toString()).matches()).sorted().toList();
        }
    }

    private static long sequenceOf(Path file, Pattern pattern) {
        Matcher m = pattern.matcher(file.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException("Not a journal file: " + file);
        }
        return Long.parseLong(m.group(1));
    }
}
