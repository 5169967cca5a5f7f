package dev.punctual.local.measure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceUseTest {

    @Test
    void group_isThePoolWithoutTheThreadsNumber_withTheDatabaseAndTheStreamReadersNamed() {
        assertThat(ResourceUse.group("punctual-bucket-12")).isEqualTo("punctual-bucket");
        assertThat(ResourceUse.group("punctual-task-3")).isEqualTo("punctual-task");
        assertThat(ResourceUse.group("SQLiteQueue[]")).isEqualTo("database");
        assertThat(ResourceUse.group("stream-punctual-bench-1795562395123")).isEqualTo("stream-reader");
        assertThat(ResourceUse.group("stream-discovery")).isEqualTo("stream-discovery");
        assertThat(ResourceUse.group("main")).isEqualTo("main");
    }

    @Test
    void toJson_listsTheBusiestGroupsPerSecond_andWhatNoThreadAccountsFor() throws Exception {
        ResourceUse used = new ResourceUse(Duration.ofSeconds(2), 3_000, 800, 4, 60,
                Map.of("database", 800.0, "punctual-bucket", 1_200.0, "punctual-timer", 1.0));

        JsonNode cpu = new ObjectMapper().readTree(used.toJson());

        assertThat(cpu.path("processMsPerSecond").asDouble()).isEqualTo(1500.0);
        assertThat(cpu.path("threadsMsPerSecond").fieldNames()).toIterable()
                .as("busiest first, a group under 1 ms a second left out").containsExactly("punctual-bucket", "database", "other");
        assertThat(cpu.path("threadsMsPerSecond").path("other").asDouble()).isEqualTo(500.0);
    }

    private static final double PROCESS_CPU_TICK_MS = 10.0;

    @Test
    void snapshots_countTheCpuOfThisThreadUnderItsGroup() {
        ResourceUse.Snapshot before = ResourceUse.Snapshot.take(Instant.EPOCH);
        long spin = 0;
        for (long end = System.nanoTime() + 50_000_000; System.nanoTime() < end; ) {
            spin++;
        }

        ResourceUse used = ResourceUse.Snapshot.take(Instant.EPOCH.plusSeconds(1)).since(before);

        assertThat(spin).isPositive();
        assertThat(used.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(used.threadCpuMillis().get(ResourceUse.group(Thread.currentThread().getName())))
                .as("this thread's own spin").isGreaterThan(10.0);
        // The process's CPU time is counted in clock ticks (10 ms on Linux), a thread's in nanoseconds: the
        // process may read up to one tick below its busiest thread.
        assertThat(used.processCpuMillis()).isGreaterThanOrEqualTo(used.threadCpuMillis().values().stream()
                .mapToDouble(Double::doubleValue).max().orElseThrow() - PROCESS_CPU_TICK_MS);
    }
}
