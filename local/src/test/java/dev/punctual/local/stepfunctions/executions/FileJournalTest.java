package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileJournalTest {

    @TempDir
    Path dir;

    private final List<String> replayed = new ArrayList<>();

    private FileJournal open() {
        replayed.clear();
        return FileJournal.open(dir, (r, filedIn) -> replayed.add(new String(r, StandardCharsets.UTF_8)), 1 << 20)
                .journal();
    }

    private static byte[] record(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void append_thenReopen_replaysEveryRecordInOrder() {
        FileJournal journal = open();
        for (int i = 0; i < 100; i++) {
            journal.append(record("r" + i));
        }
        journal.append(record("last")).join();
        journal.close();

        open().close();
        assertThat(replayed).hasSize(101).startsWith("r0", "r1").endsWith("r99", "last");
    }

    @Test
    void close_rightAfterAppendsNotWaitedFor_keepsEveryOneOfThem() {
        // close() used to interrupt the writer: an interrupt landing in a FileChannel write or force
        // closes the channel, and the records of that batch and every later one were lost.
        for (int round = 0; round < 20; round++) {
            FileJournal journal = open();
            for (int i = 0; i < 50; i++) {
                journal.append(record(round + "-" + i));
            }
            journal.close();
        }

        open().close();
        assertThat(replayed).hasSize(20 * 50).startsWith("0-0").endsWith("19-49");
    }

    @Test
    void reopen_afterTornTailRecord_keepsEverythingBeforeIt() throws IOException {
        FileJournal journal = open();
        journal.append(record("kept-1"));
        journal.append(record("kept-2")).join();
        journal.close();
        Path segment = segments().get(0);
        // A crash mid-write: a frame header announcing 50 bytes, followed by only 3 of them.
        Files.write(segment, new byte[] {0, 0, 0, 50, 1, 2, 3, 4, 'a', 'b', 'c'}, StandardOpenOption.APPEND);

        FileJournal reopened = open();
        assertThat(replayed).containsExactly("kept-1", "kept-2");
        reopened.append(record("after-restart")).join();
        reopened.close();

        open().close();
        assertThat(replayed).containsExactly("kept-1", "kept-2", "after-restart");
    }

    @Test
    void reopen_whenLastRecordFailsItsChecksum_dropsOnlyThatRecord() throws IOException {
        FileJournal journal = open();
        journal.append(record("good"));
        journal.append(record("damaged")).join();
        journal.close();
        Path segment = segments().get(0);
        byte[] content = Files.readAllBytes(segment);
        content[content.length - 1] ^= 0x55;
        Files.write(segment, content);

        open().close();
        assertThat(replayed).containsExactly("good");
    }

    @Test
    void snapshot_replacesOlderSegments_andReplayStartsFromIt() throws IOException {
        FileJournal journal = open();
        journal.append(record("old-1"));
        journal.append(record("old-2")).join();
        journal.snapshotsFrom(writer -> {
            writer.snapshot(record("state-A"));
            writer.snapshot(record("state-B"));
        });
        journal.snapshotNow().join();
        journal.append(record("new-1")).join();
        journal.close();

        assertThat(segments()).hasSize(1);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.endsWith(".snap"));
        }
        open().close();
        assertThat(replayed).containsExactly("state-A", "state-B", "new-1");
    }

    @Test
    void incompleteSnapshot_isIgnoredInFavourOfTheSegments() throws IOException {
        FileJournal journal = open();
        journal.append(record("only")).join();
        journal.close();
        // A snapshot cut short by a crash: no end marker.
        Files.write(dir.resolve("snapshot-0000000000000099.snap"), new byte[] {0, 0, 0, 1, 0, 0, 0, 0, 1});

        open().close();
        assertThat(replayed).containsExactly("only");
    }

    private List<Path> segments() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
    }
}
