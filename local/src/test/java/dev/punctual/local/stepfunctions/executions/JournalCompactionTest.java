package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction rule on a model of the engine's state, step by step without a clock: each step starts
 * executions, closes the oldest pending ones and forgets the oldest closed beyond a count, appending
 * their records, then {@link FileJournal#settle}s, so the directory is measured between compactions, as
 * their rule leaves it, never mid-way through one.
 */
class JournalCompactionTest {

    @TempDir
    Path dir;

    @Test
    void journal_whilePendingAndKeptAreSteady_staysWithinATenthOfItsSmallestOverManyRolls() throws Exception {
        // Per-item mode's soak in miniature: pending executions beside a larger set of closed ones kept.
        Model model = new Model(10, 600, 150);
        FileJournal journal = FileJournal.open(dir, (r, f) -> { }, 1024).journal();
        journal.snapshotsFrom(model);
        for (int step = 0; step < 200; step++) {
            model.step(journal, 10);
        }
        int compactionsBefore = model.compactions;
        List<Long> sizes = new ArrayList<>();
        for (int step = 0; step < 600; step++) {
            model.step(journal, 10);
            sizes.add(bytesOnDisk());
        }
        journal.close();

        assertThat(model.compactions - compactionsBefore).as("compactions while measured").isGreaterThan(40);
        long smallest = sizes.stream().mapToLong(Long::longValue).min().orElseThrow();
        long largest = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat((double) largest / smallest).as("largest %d against smallest %d bytes", largest, smallest)
                .isLessThanOrEqualTo(1.10);
    }

    @Test
    void closedExecution_isFiledOnce_andItsFileGoesOnceNoneOfItIsKept() throws Exception {
        Model model = new Model(50, 100, 1_000);
        FileJournal journal = FileJournal.open(dir, (r, f) -> { }, 1024).journal();
        journal.snapshotsFrom(model);
        for (int step = 0; step < 300; step++) {
            model.step(journal, 10);
        }
        journal.close();

        assertThat(model.timesFiled.values()).as("filings per closed execution").containsOnly(1);
        assertThat(model.timesFiled).hasSizeGreaterThan(2_000);
        // Kept: the last 100 closed, filed 10 a step, one file per compaction; the files before them are gone.
        assertThat(files("closed-")).hasSizeBetween(1, 100 / 10 + 2);
    }

    @Test
    void compactionThatFails_marksNothingFiled_keepsTheSegments_andTheNextFilesThemAgain() throws Exception {
        Model model = new Model(5, 100, 100);
        FileJournal journal = FileJournal.open(dir, (r, f) -> { }, Long.MAX_VALUE).journal();
        journal.snapshotsFrom(model);
        for (int step = 0; step < 4; step++) {
            model.step(journal, 5);
        }
        model.failNextCompaction = true;
        assertThat(journal.snapshotNow()).failsWithin(Duration.ofSeconds(30));

        assertThat(model.keptFiledCount()).as("filed by the failed compaction").isZero();
        assertThat(files("closed-")).isEmpty();
        assertThat(files("journal-")).as("segments, the only copy still").hasSizeGreaterThanOrEqualTo(2);
        journal.snapshotNow().join();
        journal.close();

        assertThat(model.keptFiledCount()).isEqualTo(20);
        assertThat(files("closed-")).hasSize(1);
        assertThat(files("journal-")).hasSize(1);
    }

    @Test
    void snapshotRewrites_whenEverythingIsPending_costAtMostSixBytesPerByteAppended() throws Exception {
        // A bulk import: pending grows, nothing closes. The rule allows five snapshot bytes per byte
        // appended since the last snapshot, and the snapshot has grown by what was appended: six. A
        // snapshot also holds what its step appended after the roll: one step's records each.
        Model model = new Model(40, 0, 1_000_000);
        FileJournal journal = FileJournal.open(dir, (r, f) -> { }, 1024).journal();
        journal.snapshotsFrom(model);
        for (int step = 0; step < 400; step++) {
            model.step(journal, 0);
        }
        journal.close();

        assertThat(model.compactions).isGreaterThan(10);
        long oneStep = 40L * JournalFrames.framedSize(new byte[300]);
        assertThat(model.snapshotBytes).isLessThanOrEqualTo(
                (JournalCompaction.MAX_SNAPSHOT_REWRITES_PER_SEGMENT_BYTE + 1) * model.appendedBytes
                        + model.compactions * oneStep);
    }

    @Test
    void reopen_afterCompactions_replaysSnapshotThenClosedFilesThenSegment_withEachFilesIdentity() throws Exception {
        Model model = new Model(5, 20, 100);
        FileJournal journal = FileJournal.open(dir, (r, f) -> { }, 1).journal();
        journal.snapshotsFrom(model);
        for (int step = 0; step < 30; step++) {
            model.step(journal, 5);
        }
        journal.close();

        Map<Long, Integer> filedByFile = new HashMap<>();
        List<Journal.ClosedFile> order = new ArrayList<>();
        FileJournal.open(dir, (r, filedIn) -> {
            order.add(filedIn);
            if (filedIn != null) {
                filedByFile.merge(filedIn.sequence(), 1, Integer::sum);
            }
        }, 1).journal().close();

        // The snapshot's records and the segments' carry no file; the closed-execution files' do, in between.
        int firstFiled = order.indexOf(order.stream().filter(f -> f != null).findFirst().orElseThrow());
        int lastFiled = order.lastIndexOf(order.stream().filter(f -> f != null).reduce((a, b) -> b).orElseThrow());
        assertThat(order.subList(firstFiled, lastFiled + 1)).doesNotContainNull();
        assertThat(filedByFile.values().stream().mapToInt(Integer::intValue).sum())
                .as("every kept closed execution, filed once").isEqualTo(model.keptFiledCount());
    }

    private long bytesOnDisk() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.mapToLong(f -> f.toFile().length()).sum();
        }
    }

    private List<Path> files(String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    /**
     * Executions as the journal sees them: a start record appended when one starts (pending), its close
     * appended when it closes; a compaction writes each pending one to the snapshot, files each closed one
     * once and keeps the file of each filed one still kept. The oldest closed are forgotten beyond a count.
     */
    private static final class Model implements Journal.SnapshotSource {

        private final int startsPerStep;
        private final int keptClosed;
        private final int maxPending;
        private final Deque<byte[]> pending = new ArrayDeque<>();
        private final Deque<Closed> closed = new ArrayDeque<>();
        private final Map<Integer, Integer> timesFiled = new HashMap<>();
        private int next;
        private boolean failNextCompaction;
        private int compactions;
        private long snapshotBytes;
        private long appendedBytes;

        private static final class Closed {
            final int id;
            final byte[] whole;
            Journal.ClosedFile filedIn;

            Closed(int id, byte[] whole) {
                this.id = id;
                this.whole = whole;
            }
        }

        Model(int startsPerStep, int keptClosed, int maxPending) {
            this.startsPerStep = startsPerStep;
            this.keptClosed = keptClosed;
            this.maxPending = maxPending;
        }

        void step(FileJournal journal, int closes) throws InterruptedException {
            List<byte[]> appended = new ArrayList<>();
            synchronized (this) {
                for (int i = 0; i < startsPerStep && pending.size() < maxPending; i++) {
                    byte[] started = record(next++, 300);
                    pending.addLast(started);
                    appended.add(started);
                }
                for (int i = 0; i < closes && !pending.isEmpty(); i++) {
                    byte[] started = pending.pollFirst();
                    // A closed execution is its start plus what it did: about twice its pending size.
                    closed.addLast(new Closed(id(started), record(id(started), 700)));
                    appended.add(record(id(started), 400));
                }
                while (closed.size() > keptClosed) {
                    closed.pollFirst();
                }
            }
            for (byte[] record : appended) {
                appendedBytes += JournalFrames.framedSize(record);
                journal.append(record);
            }
            journal.settle();
        }

        @Override
        public synchronized void writeSnapshot(Journal.SnapshotWriter writer) {
            compactions++;
            for (byte[] p : pending) {
                writer.snapshot(p);
                snapshotBytes += JournalFrames.framedSize(p);
            }
            for (Closed c : closed) {
                if (c.filedIn != null) {
                    writer.stillKept(c.filedIn);
                } else {
                    timesFiled.merge(c.id, 1, Integer::sum);
                    writer.fileClosed(c.whole, file -> {
                        synchronized (this) {
                            c.filedIn = file;
                        }
                    });
                }
            }
            if (failNextCompaction) {
                failNextCompaction = false;
                throw new IllegalStateException("A compaction failing after it filed closed executions");
            }
        }

        synchronized int keptFiledCount() {
            return (int) closed.stream().filter(c -> c.filedIn != null).count();
        }

        private static byte[] record(int id, int size) {
            byte[] record = new byte[size];
            record[0] = (byte) (id >>> 24);
            record[1] = (byte) (id >>> 16);
            record[2] = (byte) (id >>> 8);
            record[3] = (byte) id;
            return record;
        }

        private static int id(byte[] record) {
            return ((record[0] & 0xFF) << 24) | ((record[1] & 0xFF) << 16) | ((record[2] & 0xFF) << 8)
                    | (record[3] & 0xFF);
        }
    }
}
