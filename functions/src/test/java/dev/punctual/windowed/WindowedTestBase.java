package dev.punctual.windowed;

import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * One table, its schedule index and its bucket executions on a manual clock, with the handler's
 * scheduler and the bucket function's worker over them: what every windowed core test starts from.
 */
abstract class WindowedTestBase {

    static final Instant NOW = Instant.parse("2027-01-15T08:00:00Z");
    static final long T = NOW.getEpochSecond();
    static final String TABLE = "orders";

    WindowedFakes.ManualClock clock;
    WindowedFakes.Index index;
    WindowedFakes.Table table;
    WindowedFakes.BucketExecutions executions;
    ExecutorService pool;
    BucketScheduler scheduler;
    BucketWorker worker;

    @BeforeEach
    void setUpWorld() {
        clock = new WindowedFakes.ManualClock(NOW);
        index = new WindowedFakes.Index();
        table = new WindowedFakes.Table(clock);
        executions = new WindowedFakes.BucketExecutions();
        pool = Executors.newFixedThreadPool(4);
        scheduler = new BucketScheduler(index, table, executions, clock, clock, pool);
        worker = new BucketWorker(index, table, executions, clock, clock, pool);
    }

    @AfterEach
    void tearDownWorld() {
        pool.shutdownNow();
    }
}
