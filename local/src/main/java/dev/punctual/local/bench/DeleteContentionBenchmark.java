package dev.punctual.local.bench;

import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.statemachine.StreamWiring;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * What DynamoDB Local's single SQLite thread does besides the floor's deletes while the local runtime
 * expires a second's items, one load at a time: the floor's burst of conditional deletes
 * ({@link DeleteFloorBenchmark}) alone, then with each thing the runtime adds around it, then with all of
 * them. Every round runs every variant once, in a rotated order, so a change in the machine's load
 * weighs on all of them alike.
 * <ul>
 *   <li>{@code floor}: the floor's burst, as {@link DeleteFloorBenchmark} runs it;</li>
 *   <li>{@code capacity}: each delete asks for its consumed capacity, as the runtime's metered client
 *       ({@code MeteredDynamoDb}) does for the cost report;</li>
 *   <li>{@code stream}: the runtime's stream poller reads the table's stream (every REMOVE record of
 *       the burst) while the deletes run, with a function that does nothing;</li>
 *   <li>{@code full}: the burst's table also holds {@code --table-items} other items (the bench's table
 *       holds up to 60,000 when its first second falls due);</li>
 *   <li>{@code probe}: the trial's early-delete probe, a consistent BatchGetItem of 100 items, 400 ms
 *       into the burst, where the bench's probe of the next second falls;</li>
 *   <li>{@code all}: everything above at once.</li>
 * </ul>
 * Besides the completion times it prints the CPU time the SQLite thread spent per variant: CPU time,
 * unlike the wall clock, moves little with the rest of the machine's load, so the extra work each
 * variant puts on the serial thread reads much the same on a busy machine. Last, it splits a
 * GetRecords call's cost into a part per call and a part per record.
 *
 * <pre>
 * java -cp local/target/punctual.jar dev.punctual.local.bench.DeleteContentionBenchmark [--burst 1000] [--rounds 6] [--threads 16] [--table-items 60000]
 * </pre>
 */
public final class DeleteContentionBenchmark {

    /** One thing the runtime adds around the deletes. */
    enum Load {
        CAPACITY, STREAM, FULL, PROBE
    }

    /** The variants, each a set of loads, in the order they are printed. */
    private static final Map<String, Set<Load>> VARIANTS = new LinkedHashMap<>();

    static {
        VARIANTS.put("floor", EnumSet.noneOf(Load.class));
        VARIANTS.put("capacity", EnumSet.of(Load.CAPACITY));
        VARIANTS.put("stream", EnumSet.of(Load.STREAM));
        VARIANTS.put("full", EnumSet.of(Load.FULL));
        VARIANTS.put("probe", EnumSet.of(Load.PROBE));
        VARIANTS.put("all", EnumSet.allOf(Load.class));
    }

    private static final long PROBE_AFTER_MILLIS = 400;
    private static final int PROBE_ITEMS = 100;
    /** Rounds before this one warm the JIT and are left out of the summary. */
    private static final int FIRST_WARM_ROUND = 3;

    private DeleteContentionBenchmark() {
    }

    /** One variant's run: completion times (ms after the burst began, sorted) and the SQLite thread's CPU. */
    private record Run(long[] completedMillis, double sqliteCpuMillis, double processCpuMillis) {

        long percentile(double p) {
            return completedMillis[Math.max(0, (int) Math.ceil(completedMillis.length * p) - 1)];
        }
    }

    public static void main(String[] args) throws Exception {
        int burst = option(args, "--burst", 1000);
        int rounds = option(args, "--rounds", 6);
        int threads = option(args, "--threads", 16);
        int tableItems = option(args, "--table-items", 60_000);
        System.out.printf("DynamoDB Local conditional deletes, %d due at once, %d threads, in-process, %d CPUs, with"
                + " what the runtime adds around them; %d other items in the full table%n", burst, threads,
                Runtime.getRuntime().availableProcessors(), tableItems);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        ScheduledExecutorService probes = Executors.newSingleThreadScheduledExecutor();
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        VARIANTS.keySet().forEach(name -> runs.put(name, new ArrayList<>()));
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, null));
             StreamPoller poller = StreamPoller.builder()
                     .dynamoDb(server.inProcess().dynamoDb())
                     .streams(server.inProcess().streams())
                     .handlerFactory(table -> (event, context) -> new StreamsEventResponse())
                     .filterPatterns(table -> StreamWiring.filterPatterns(table.ttlAttribute(), true))
                     .settings(MappingSettings.builder().build())
                     .start()) {
            DynamoDbClient dynamoDb = server.inProcess().dynamoDb();
            // As in the runtime: the watched tables have TTL on, their items' TTL has passed, and DynamoDB Local's
            // own TTL job never runs.
            poller.setEnabled(false);
            long sqliteThread = sqliteThreadId();
            // Two full tables, so the one the poller watches does not make the other's deletes pay for it.
            createTable(dynamoDb, "full", false);
            createTable(dynamoDb, "full-watched", true);
            fill(dynamoDb, "full", "other-", tableItems);
            fill(dynamoDb, "full-watched", "other-", tableItems);
            // The watched table's INSERT records are read now, not in the first round that watches it.
            poller.setEnabled(true);
            poller.discoverTables();
            caughtUp(poller);
            poller.setEnabled(false);
            List<String> order = new ArrayList<>(VARIANTS.keySet());
            for (int round = 1; round <= rounds; round++) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %d:", round));
                for (int v = 0; v < order.size(); v++) {
                    String name = order.get((v + round - 1) % order.size());
                    Set<Load> loads = VARIANTS.get(name);
                    Run run = run(dynamoDb, poller, pool, probes, sqliteThread, loads, burst, round + "-" + name);
                    runs.get(name).add(run);
                    line.append(String.format(Locale.ROOT, "  %s p99 %d ms (sqlite %.0f ms)", name, run.percentile(0.99),
                            run.sqliteCpuMillis()));
                }
                System.out.println(line);
            }
            System.out.printf("%nmedian of rounds %d-%d: completion p50 / p99 / all, the SQLite thread's and the process's CPU per burst%n",
                    FIRST_WARM_ROUND, rounds);
            double floorP99 = median(runs.get("floor"), r -> (double) r.percentile(0.99));
            double floorCpu = median(runs.get("floor"), Run::sqliteCpuMillis);
            for (Map.Entry<String, List<Run>> variant : runs.entrySet()) {
                double p50 = median(variant.getValue(), r -> (double) r.percentile(0.50));
                double p99 = median(variant.getValue(), r -> (double) r.percentile(0.99));
                double all = median(variant.getValue(), r -> (double) r.percentile(1.0));
                double cpu = median(variant.getValue(), Run::sqliteCpuMillis);
                double process = median(variant.getValue(), Run::processCpuMillis);
                System.out.printf(Locale.ROOT, "%-9s p50 %5.0f ms  p99 %5.0f ms (%.2f x floor)  all %5.0f ms  sqlite CPU %5.0f ms"
                        + " (%.2f x floor)  process CPU %5.0f ms%n", variant.getKey(), p50, p99, p99 / floorP99, all, cpu,
                        cpu / floorCpu, process);
            }
            streamReadCost(dynamoDb, server.inProcess().streams(), sqliteThread, burst);
        } finally {
            pool.shutdownNow();
            probes.shutdownNow();
        }
        // DynamoDB Local leaves non-daemon threads behind after its server is stopped.
        System.exit(0);
    }

    private static Run run(DynamoDbClient dynamoDb, StreamPoller poller, ExecutorService pool,
            ScheduledExecutorService probes, long sqliteThread, Set<Load> loads, int burst, String label) throws Exception {
        boolean watched = loads.contains(Load.STREAM);
        String table;
        if (loads.contains(Load.FULL)) {
            table = watched ? "full-watched" : "full";
        } else {
            table = "burst-" + label;
            createTable(dynamoDb, table, watched);
        }
        String prefix = "burst-" + label + "-";
        fill(dynamoDb, table, prefix, burst);
        poller.setEnabled(watched);
        if (watched) {
            poller.discoverTables();
            caughtUp(poller);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpuBefore = threads.getThreadCpuTime(sqliteThread);
        long processBefore = processCpuNanos();
        ScheduledFuture<?> probe = loads.contains(Load.PROBE)
                ? probes.schedule(() -> probe(dynamoDb, table, prefix, burst), PROBE_AFTER_MILLIS, TimeUnit.MILLISECONDS)
                : null;
        long[] completed = DeleteBurst.deleteAll(dynamoDb, table, prefix, burst, pool, loads.contains(Load.CAPACITY));
        if (probe != null) {
            probe.get();
        }
        if (watched) {
            // The poller reads the last REMOVE records after the last delete: that work is the stream's too.
            caughtUp(poller);
        }
        double cpuMillis = (threads.getThreadCpuTime(sqliteThread) - cpuBefore) / 1e6;
        double processMillis = (processCpuNanos() - processBefore) / 1e6;
        poller.setEnabled(false);
        Arrays.sort(completed);
        return new Run(completed, cpuMillis, processMillis);
    }

    /**
     * What reading a stream costs the SQLite thread, split into a part per GetRecords call and a part
     * per record read: many calls on a caught-up shard, then the records of a burst of deletes read
     * in pages of {@code limit}, for limits from the poller's largest to a record a call.
     */
    private static void streamReadCost(DynamoDbClient dynamoDb, DynamoDbStreamsClient streams, long sqliteThread, int burst) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.out.printf("%nGetRecords, SQLite thread's CPU:%n");
        for (int round = 1; round <= 3; round++) {
            String table = "stream-cost-" + round;
            createTable(dynamoDb, table, false);
            String streamArn = dynamoDb.describeTable(b -> b.tableName(table)).table().latestStreamArn();
            String shard = streams.describeStream(b -> b.streamArn(streamArn)).streamDescription().shards().get(0).shardId();
            fill(dynamoDb, table, "cost-" + round + "-", burst);
            String iterator = streams.getShardIterator(b -> b.streamArn(streamArn).shardId(shard)
                    .shardIteratorType(ShardIteratorType.LATEST)).shardIterator();
            int calls = 200;
            long before = threads.getThreadCpuTime(sqliteThread);
            for (int i = 0; i < calls; i++) {
                String at = iterator;
                iterator = streams.getRecords(b -> b.shardIterator(at).limit(1000)).nextShardIterator();
            }
            double perEmptyCall = (threads.getThreadCpuTime(sqliteThread) - before) / 1e3 / calls;
            String prefix = "cost-" + round + "-";
            for (int i = 0; i < burst; i++) {
                int index = i;
                dynamoDb.deleteItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS(prefix + index))));
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "round %d: empty call %.0f us", round, perEmptyCall));
            for (int limit : new int[] {1000, 50, 1}) {
                String start = streams.getShardIterator(b -> b.streamArn(streamArn).shardId(shard)
                        .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
                // Skip the INSERT records of the fills, then read the burst's REMOVE records.
                int read = 0;
                int removes = 0;
                long cpu = 0;
                String at = start;
                while (at != null && removes < burst) {
                    String page = at;
                    long callBefore = threads.getThreadCpuTime(sqliteThread);
                    GetRecordsResponse response = streams.getRecords(b -> b.shardIterator(page).limit(limit));
                    long spent = threads.getThreadCpuTime(sqliteThread) - callBefore;
                    long pageRemoves = response.records().stream().filter(r -> r.eventName() == OperationType.REMOVE).count();
                    if (pageRemoves > 0) {
                        cpu += spent;
                        read += response.records().size();
                    }
                    removes += (int) pageRemoves;
                    at = response.records().isEmpty() ? null : response.nextShardIterator();
                }
                line.append(String.format(Locale.ROOT, ", %d records in pages of %d: %.0f us a record", read, limit,
                        cpu / 1e3 / Math.max(1, read)));
            }
            System.out.println(line);
        }
    }

    /** The trial's early-delete probe: a consistent read of 100 of the burst's items. */
    private static void probe(DynamoDbClient dynamoDb, String table, String prefix, int burst) {
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < Math.min(PROBE_ITEMS, burst); i++) {
            keys.add(Map.of("id", AttributeValue.fromS(prefix + (burst - 1 - i * Math.max(1, burst / PROBE_ITEMS)))));
        }
        Map<String, KeysAndAttributes> pending = Map.of(table, KeysAndAttributes.builder().keys(keys).consistentRead(true)
                .projectionExpression("#id").expressionAttributeNames(Map.of("#id", "id")).build());
        while (!pending.isEmpty()) {
            Map<String, KeysAndAttributes> request = pending;
            pending = dynamoDb.batchGetItem(b -> b.requestItems(request)).unprocessedKeys();
        }
    }

    /** Waits until the poller has read everything there is: its count of records read stops moving. */
    private static void caughtUp(StreamPoller poller) throws InterruptedException {
        long last = -1;
        int still = 0;
        while (still < 4) {
            Thread.sleep(100);
            long read = poller.metrics().snapshot().recordsRead();
            still = read == last ? still + 1 : 0;
            last = read;
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The thread DynamoDB Local's SQLite queue runs every database job on. */
    private static long sqliteThreadId() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("SQLiteQueue")) {
                return info.getThreadId();
            }
        }
        throw new IllegalStateException("no SQLiteQueue thread: DynamoDB Local is not the build this benchmark knows");
    }

    private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> figure) {
        double[] values = runs.stream().skip(FIRST_WARM_ROUND - 1).mapToDouble(figure).sorted().toArray();
        if (values.length == 0) {
            values = runs.stream().mapToDouble(figure).sorted().toArray();
        }
        return values.length % 2 == 1 ? values[values.length / 2]
                : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    }

    private static void createTable(DynamoDbClient dynamoDb, String table, boolean watched) {
        DeleteBurst.createTable(dynamoDb, table);
        if (watched) {
            // The poller watches tables with a stream and TTL, as the runtime's does.
            dynamoDb.updateTimeToLive(b -> b.tableName(table).timeToLiveSpecification(t -> t.enabled(true)
                    .attributeName(DeleteBurst.TTL_ATTRIBUTE)));
        }
    }

    private static void fill(DynamoDbClient dynamoDb, String table, String prefix, int count) {
        DeleteBurst.fill(dynamoDb, table, prefix, count, "written by the delete contention benchmark");
    }

    private static int option(String[] args, String name, int fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return fallback;
    }
}
