package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files of a journal in its directory: numbered segments {@code journal-N.log}, snapshots
 * {@code snapshot-N.snap}, closed-execution files {@code closed-N.log} (both written as {@code .tmp} and
 * renamed once complete), which of them exist, and the directory fsync that makes a created or renamed
 * file durable.
 */
final class JournalDirectory {

    private static final System.Logger LOG = System.getLogger(JournalDirectory.class.getName());
    private static final Pattern SEGMENT = Pattern.compile("journal-(\\d{16})\\.log");
    private static final Pattern SNAPSHOT = Pattern.compile("snapshot-(\\d{16})\\.snap");
    private static final Pattern CLOSED = Pattern.compile("closed-(\\d{16})\\.log");

    final Path path;

    JournalDirectory(Path path) {
        this.path = path;
    }

    /** Creates the directory if needed and removes what a crash left half-written. */
    void prepare() throws IOException {
        Files.createDirectories(path);
        try (Stream<Path> entries = Files.list(path)) {
            for (Path p : entries.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Segments, oldest first. */
    List<Path> segments() throws IOException {
        return files(SEGMENT);
    }

    /** Snapshots, oldest first. */
    List<Path> snapshots() throws IOException {
        return files(SNAPSHOT);
    }

    /** Closed-execution files, oldest first. */
    List<Path> closedFiles() throws IOException {
        return files(CLOSED);
    }

    static long segmentSequence(Path segment) {
        return sequenceOf(segment, SEGMENT);
    }

    static long snapshotSequence(Path snapshot) {
        return sequenceOf(snapshot, SNAPSHOT);
    }

    static long closedFileSequence(Path closedFile) {
        return sequenceOf(closedFile, CLOSED);
    }

    /** Creates segment {@code sequence} for appending. */
    FileChannel openSegment(long sequence) {
        try {
            FileChannel segment = FileChannel.open(path.resolve(String.format("journal-%016d.log", sequence)),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            sync();
            return segment;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create journal segment " + sequence + " in " + path, e);
        }
    }

    /** Where snapshot {@code sequence} is written before it is complete. */
    Path temporarySnapshot(long sequence) {
        return path.resolve(String.format("snapshot-%016d.tmp", sequence));
    }

    /** Where closed-execution file {@code sequence} is written before it is complete. */
    Path temporaryClosedFile(long sequence) {
        return path.resolve(String.format("closed-%016d.tmp", sequence));
    }

    /** Makes a complete temporary snapshot snapshot {@code sequence}, durably. */
    void publishSnapshot(Path temporary, long sequence) throws IOException {
        publish(temporary, path.resolve(String.format("snapshot-%016d.snap", sequence)));
    }

    /** Renames a complete temporary closed-execution file to {@code closed-N.log}, durably. */
    void publishClosedFile(Path temporary, long sequence) throws IOException {
        publish(temporary, path.resolve(String.format("closed-%016d.log", sequence)));
    }

    private void publish(Path temporary, Path target) throws IOException {
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
        }
        sync();
    }

    /** Deletes the segments and snapshots older than {@code sequence}: a snapshot of it replaces them. */
    void deleteBefore(long sequence) throws IOException {
        for (Path old : segments()) {
            if (segmentSequence(old) < sequence) {
                Files.deleteIfExists(old);
            }
        }
        for (Path old : snapshots()) {
            if (snapshotSequence(old) < sequence) {
                Files.deleteIfExists(old);
            }
        }
    }

    /**
     * Deletes the closed-execution files older than {@code sequence} that are not in {@code kept}: no
     * execution the engine still keeps is in them.
     */
    void deleteClosedFilesBefore(long sequence, Set<Long> kept) throws IOException {
        for (Path old : closedFiles()) {
            long closedSequence = closedFileSequence(old);
            if (closedSequence < sequence && !kept.contains(closedSequence)) {
                Files.deleteIfExists(old);
            }
        }
    }

    /** The bytes the closed-execution files in {@code sequences} take. */
    long closedFileBytes(Set<Long> sequences) throws IOException {
        long bytes = 0;
        for (Path file : closedFiles()) {
            if (sequences.contains(closedFileSequence(file))) {
                bytes += Files.size(file);
            }
        }
        return bytes;
    }

    private void sync() throws IOException {
        try (FileChannel dir = FileChannel.open(path, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open a directory for fsync; the files themselves are forced.
            LOG.log(System.Logger.Level.DEBUG, "Directory fsync not supported here: " + e.getMessage());
        }
    }

    private List<Path> files(Pattern pattern) throws IOException {
        try (Stream<Path> entries = Files.list(path)) {
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
