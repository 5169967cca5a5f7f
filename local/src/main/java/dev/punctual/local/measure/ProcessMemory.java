package dev.punctual.local.measure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What a long run holds: heap in use after a full collection (what is still reachable, not what the
 * collector has yet to reclaim), the process's resident memory, and bytes on disk under a directory.
 */
public final class ProcessMemory {

    private static final Path STATUS = Path.of("/proc/self/status");

    private ProcessMemory() {
    }

    /**
     * Heap in use, in MB, right after a full collection. {@code System.gc()} is a full, stop-the-world
     * collection on the JVM's default collector unless {@code -XX:+ExplicitGCInvokesConcurrent} is set.
     */
    public static long heapAfterFullGcMb() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
    }

    /** Resident memory in MB ({@code VmRSS} of {@code /proc/self/status}), or -1 where there is no such file. */
    public static long residentMb() {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    return vmRssKb(line) / 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or /proc not mounted: the figure is reported as unknown.
        }
        return -1;
    }

    /** The kB figure of a {@code VmRSS:   123456 kB} line. */
    static long vmRssKb(String line) {
        return Long.parseLong(line.substring("VmRSS:".length()).replace("kB", "").strip());
    }

    /** Bytes in the regular files under {@code directory}, 0 if it does not exist. Files vanishing meanwhile count 0. */
    public static long bytesUnder(Path directory) {
        if (directory == null || !Files.isDirectory(directory)) {
            return 0;
        }
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> files = Files.walk(directory)) {
                return files.mapToLong(ProcessMemory::sizeOrZero).sum();
            } catch (IOException | java.io.UncheckedIOException e) {
                // A compaction deleted a directory mid-walk: look again, a few times.
                if (attempt == 3) {
                    return -1;
                }
            }
        }
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
