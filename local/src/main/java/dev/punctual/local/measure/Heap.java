package dev.punctual.local.measure;

import java.lang.management.ManagementFactory;

/** The heap a trial reports. */
final class Heap {

    private Heap() {
    }

    /** Heap in use now, in MB. */
    static long usedMb() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
    }
}
