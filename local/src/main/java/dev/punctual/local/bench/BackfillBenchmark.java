package dev.punctual.local.bench;

import dev.punctual.expiry.Sleeper;
import dev.punctual.functions.DynamoDbBackfillProgress;
import dev.punctual.local.cli.BackfillFollower;
import dev.punctual.local.measure.Percentiles;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * Adopting a big table: {@code --items} items already in a table (no stream: written before Punctual
 * was attached), TTLs spread evenly over the next {@code --spread} seconds, then the runtime's backfill
 * workflow started with {@code {"table": ...}} and followed to its end. Prints how long the backfill
 * took, the peak of open executions and of heap used while it ran, and how late items were deleted:
 * those due after the backfill ended (the {@code --watch-from}..{@code --watch-to} seconds after it),
 * and those that fell due before the Scan reached them (a Scan is in key-hash order, not TTL order).
 *
 * <pre>
 * java -Xmx2g -cp local/target/punctual.jar dev.punctual.local.bench.BackfillBenchmark [--mode windowed]
 *     [--items 1000000] [--spread 86400] [--segments N] [--starts-per-second R] [--writers 8] [--data-dir DIR]
 * </pre>
 */
@Command(name = "BackfillBenchmark", mixinStandardHelpOptions = true,
        description = "Backfill a table that already holds --items items with TTLs over the next --spread seconds.")
public final class BackfillBenchmark implements Callable<Integer> {

    private static final String TTL = "expiresAt";
    private static final String KEY = "id";

    @Option(names = "--mode", defaultValue = "windowed", description = "per-item or windowed (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--items", defaultValue = "1000000", description = "Items in the table (default: ${DEFAULT-VALUE}).")
    int items;

    @Option(names = "--spread", defaultValue = "86400", description = "TTLs spread evenly over this many seconds from"
            + " the start (default: ${DEFAULT-VALUE}, a day).")
    int spread;

    @Option(names = "--segments", description = "Backfill segments (default: the workflow's).")
    Integer segments;

    @Option(names = "--starts-per-second", description = "StartExecution calls per second (default: the workflow's).")
    Double startsPerSecond;

    @Option(names = "--writers", defaultValue = "8", description = "Threads writing the items (default: ${DEFAULT-VALUE}).")
    int writers;

    @Option(names = "--watch-from", defaultValue = "120", description = "Watch items due this many seconds after the"
            + " backfill ends (default: ${DEFAULT-VALUE})...")
    int watchFrom;

    @Option(names = "--watch-to", defaultValue = "180", description = "...up to this many (default: ${DEFAULT-VALUE}).")
    int watchTo;

    @Option(names = "--data-dir", description = "Keep the runtime's state here (default: in memory).")
    Path dataDirectory;

    @Option(names = "--dynamodb-fault", paramLabel = "ERROR=FRACTION", description = "Fault injection from the backfill's"
            + " start on, as punctual local takes it: every DynamoDB call Punctual makes fails with ERROR with probability"
            + " FRACTION.")
    String dynamoDbFault;

    private final AtomicLong peakHeap = new AtomicLong();

    public static void main(String[] args) {
        int code = new CommandLine(new BackfillBenchmark()).execute(args);
        // DynamoDB Local leaves non-daemon threads behind after it stops.
        System.exit(code);
    }

    @Override
    public Integer call() throws Exception {
        ExpiryMode expiryMode = ExpiryMode.fromLabel(mode);
        LocalRuntime.Options options = LocalRuntime.Options.onFreePorts().withMode(expiryMode);
        if (dataDirectory != null) {
            options = options.withDataDirectory(dataDirectory);
        }
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try (LocalRuntime runtime = LocalRuntime.start(options);
             SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            Instant start = Instant.now();
            String table = "adopted-" + start.getEpochSecond();
            System.out.printf("Mode %s; %d items with TTLs over %d s in %s; %d CPUs, max heap %d MiB%n", expiryMode, items, spread,
                    table, Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
            long[] ttls = ttls(start);
            createTable(runtime.dynamoDb(), table);
            long written = timed(() -> {
                write(runtime.dynamoDb(), table, ttls);
                return null;
            });
            System.out.printf("written          %d items in %.1f s; the table holds %d%n", items, written / 1000.0,
                    itemCount(runtime.dynamoDb(), table));
            runtime.observations().deletions().track(table);

            if (dynamoDbFault != null) {
                runtime.faults().dynamoDb().parse(dynamoDbFault, System.nanoTime());
                System.out.printf("faults           DynamoDB %s%n", dynamoDbFault);
            }
            runtime.stepFunctionsEngine().resetPeakOpenExecutions();
            System.gc();
            peakHeap.set(0);
            sampler.scheduleAtFixedRate(this::sampleHeap, 0, 250, TimeUnit.MILLISECONDS);
            BackfillFollower follower = new BackfillFollower(sfn, new DynamoDbBackfillProgress(runtime.dynamoDb(),
                    BackfillProgressTable.LOCAL_TABLE_NAME), LocalDefaults.backfillStateMachineArn(), Sleeper.SYSTEM,
                    Duration.ofSeconds(1));
            Instant backfillStart = Instant.now();
            String execution = follower.start(input(table));
            AtomicLong lastPrint = new AtomicLong();
            BackfillFollower.Ending ending = follower.follow(table, execution, snapshot -> {
                if (System.nanoTime() - lastPrint.get() > 10_000_000_000L) {
                    lastPrint.set(System.nanoTime());
                    System.out.printf("  %5.0f s: segments done %d, scanned %d, scheduled %d, deleted now %d, open executions %d%n",
                            Duration.between(backfillStart, Instant.now()).toMillis() / 1000.0, snapshot.segmentsDone(),
                            snapshot.counts().scanned(), snapshot.counts().scheduled(), snapshot.counts().deletedNow(),
                            runtime.stepFunctionsEngine().openExecutions());
                }
            });
            Instant backfillEnd = Instant.now();
            int peakOpen = runtime.stepFunctionsEngine().peakOpenExecutions();
            long heapDuringBackfill = peakHeap.get();
            if (!ending.backfilled()) {
                System.out.printf("backfill ended %s: %s %s%n", ending.status(), ending.error(), ending.cause());
                return 2;
            }
            System.out.printf("backfill         %.1f s (%s), %.0f items/s; scanned %d, scheduled %d, deleted now %d, skipped %d%n",
                    Duration.between(backfillStart, backfillEnd).toMillis() / 1000.0, ending.executionArn(),
                    items * 1000.0 / Math.max(1, Duration.between(backfillStart, backfillEnd).toMillis()),
                    ending.last().counts().scanned(), ending.last().counts().scheduled(), ending.last().counts().deletedNow(),
                    ending.last().counts().skipped());
            System.out.printf("page attempts    %d failed and retried whole (an attempt that failed after deleting its"
                    + " page's past items leaves them deleted but counted by no page)%n", failedAttempts(sfn, ending.executionArn()));
            System.out.printf("open executions  %d at most during the backfill (must be <= 1000)%n", peakOpen);
            System.out.printf("heap used        %d MiB at most during the backfill (sampled every 250 ms; must be <= 2048)%n",
                    heapDuringBackfill >> 20);

            long watchEnd = backfillEnd.getEpochSecond() + watchTo;
            System.out.printf("waiting until %s for the items due %d-%d s after the backfill ended...%n",
                    Instant.ofEpochSecond(watchEnd + 5), watchFrom, watchTo);
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), Instant.ofEpochSecond(watchEnd + 5)).toMillis()));
            System.out.printf("heap used        %d MiB at most overall%n", peakHeap.get() >> 20);
            report(runtime, table, ttls, backfillStart, backfillEnd);
            return 0;
        } finally {
            sampler.shutdownNow();
        }
    }

    private void report(LocalRuntime runtime, String table, long[] ttls, Instant backfillStart, Instant backfillEnd) {
        long from = backfillEnd.getEpochSecond() + watchFrom;
        long to = backfillEnd.getEpochSecond() + watchTo;
        Lateness before = new Lateness();
        Lateness during = new Lateness();
        Lateness after = new Lateness();
        for (int i = 0; i < ttls.length; i++) {
            long ttl = ttls[i];
            Lateness group = ttl < backfillStart.getEpochSecond() ? before : ttl <= backfillEnd.getEpochSecond() ? during
                    : ttl >= from && ttl < to ? after : null;
            if (group == null) {
                continue;
            }
            Optional<Instant> deletedAt = runtime.observations().deletions().deletedAt(table, Map.of(KEY, AttributeValue.fromS(id(i))));
            group.add(ttl, deletedAt);
        }
        before.print("due before the backfill started");
        during.print("due while it ran (before the Scan reached them, or after)");
        after.print("due " + watchFrom + "-" + watchTo + " s after it ended");
    }

    /** Lateness of one group of items: deleted at minus TTL, never negative unless early. */
    private static final class Lateness {
        private final List<Long> lateMillis = new ArrayList<>();
        private int early;
        private int missed;

        void add(long ttl, Optional<Instant> deletedAt) {
            if (deletedAt.isEmpty()) {
                missed++;
                return;
            }
            long late = deletedAt.get().toEpochMilli() - ttl * 1000;
            if (late < 0) {
                early++;
            }
            lateMillis.add(late);
        }

        void print(String group) {
            int count = lateMillis.size() + missed;
            if (count == 0) {
                System.out.printf("%-58s none%n", group);
                return;
            }
            long[] sorted = lateMillis.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf("%-58s %d items: deleted %d, early %d, missed %d; late p50 %s, p99 %s, max %s%n", group, count,
                    sorted.length, early, missed, ms(sorted, 50), ms(sorted, 99),
                    sorted.length == 0 ? "-" : sorted[sorted.length - 1] + " ms");
        }

        private static String ms(long[] sorted, double quantile) {
            return sorted.length == 0 ? "-" : Percentiles.nearestRank(sorted, quantile) + " ms";
        }
    }

    private Map<String, Object> input(String table) {
        Map<String, Object> input = new LinkedHashMap<>();
        input.put(BackfillWorkflow.TABLE, table);
        if (segments != null) {
            input.put(BackfillWorkflow.SEGMENTS, segments);
        }
        if (startsPerSecond != null) {
            input.put(BackfillWorkflow.STARTS_PER_SECOND, startsPerSecond);
        }
        return input;
    }

    private void sampleHeap() {
        Runtime jvm = Runtime.getRuntime();
        peakHeap.accumulateAndGet(jvm.totalMemory() - jvm.freeMemory(), Math::max);
    }

    /** TTLs spread evenly over the next {@code spread} seconds, in a seeded random order of items. */
    private long[] ttls(Instant start) {
        SplittableRandom random = new SplittableRandom(22);
        long[] ttls = new long[items];
        for (int i = 0; i < items; i++) {
            ttls[i] = start.getEpochSecond() + 1 + random.nextLong(spread);
        }
        return ttls;
    }

    private static String id(int index) {
        return "item-" + index;
    }

    /** Items in {@code table}, by a counting Scan. */
    private static long itemCount(DynamoDbClient dynamoDb, String table) {
        return dynamoDb.scanPaginator(r -> r.tableName(table).select(Select.COUNT)).stream().mapToLong(ScanResponse::count).sum();
    }

    /** Task attempts of the execution that failed or timed out: each is a page (or a step) the workflow retried. */
    private static long failedAttempts(SfnClient sfn, String executionArn) {
        return sfn.getExecutionHistoryPaginator(r -> r.executionArn(executionArn)).events().stream()
                .map(HistoryEvent::typeAsString)
                .filter(type -> type.equals("TaskFailed") || type.equals("TaskTimedOut")
                        || type.equals("LambdaFunctionFailed") || type.equals("LambdaFunctionTimedOut"))
                .count();
    }

    private static void createTable(DynamoDbClient dynamoDb, String table) {
        dynamoDb.createTable(r -> r.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(k -> k.attributeName(KEY).keyType(KeyType.HASH))
                .attributeDefinitions(a -> a.attributeName(KEY).attributeType(ScalarAttributeType.S)));
        dynamoDb.updateTimeToLive(r -> r.tableName(table).timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL)));
    }

    private void write(DynamoDbClient dynamoDb, String table, long[] ttls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> batches = new ArrayList<>();
            for (int from = 0; from < ttls.length; from += 25) {
                int first = from;
                batches.add(pool.submit(() -> {
                    List<WriteRequest> requests = new ArrayList<>(25);
                    for (int i = first; i < Math.min(ttls.length, first + 25); i++) {
                        requests.add(WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                                KEY, AttributeValue.fromS(id(i)),
                                TTL, AttributeValue.fromN(Long.toString(ttls[i])),
                                "payload", AttributeValue.fromS("an item written before Punctual was attached"))).build()).build());
                    }
                    Map<String, List<WriteRequest>> pending = Map.of(table, requests);
                    while (!pending.isEmpty()) {
                        Map<String, List<WriteRequest>> send = pending;
                        BatchWriteItemResponse response = dynamoDb.batchWriteItem(r -> r.requestItems(send));
                        pending = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
                    }
                    return null;
                }));
            }
            for (Future<?> batch : batches) {
                batch.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long timed(Callable<?> work) throws Exception {
        long started = System.nanoTime();
        work.call();
        return (System.nanoTime() - started) / 1_000_000;
    }
}
