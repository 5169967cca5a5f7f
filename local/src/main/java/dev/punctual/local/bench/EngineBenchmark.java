package dev.punctual.local.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.executions.EngineBuilder;
import dev.punctual.local.stepfunctions.executions.Recovery;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ClockTimer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * Prints the local Step Functions engine's figures: StartExecution throughput over HTTP with the SDK,
 * pending executions held and heap used, timer lateness under a steady rate of wake-ups, and restart
 * recovery time.
 *
 * <pre>
 * java -Xmx2g -cp local/target/punctual.jar dev.punctual.local.bench.EngineBenchmark \
 *     [--http-starts 20000] [--client-threads 8] [--pending 1000000] [--wakeups-per-second 1000]
 *     [--lateness-seconds 10] [--recovery-pending 100000] [--only http|pending|lateness|recovery]
 * </pre>
 */
public final class EngineBenchmark {

    private static final String ROLE = "arn:aws:iam::123456789012:role/bench";
    /** The shape of the expire-item workflow's pending executions: a Choice, then a Wait until a timestamp. */
    private static final String FAR_WAIT = """
            {"StartAt":"BeyondHorizon","States":{
              "BeyondHorizon":{"Type":"Choice","Choices":[{"Variable":"$.horizonHops","NumericGreaterThan":0,
                "Next":"Done"}],"Default":"WaitUntilExpiry"},
              "WaitUntilExpiry":{"Type":"Wait","TimestampPath":"$.expireAt","Next":"Done"},
              "Done":{"Type":"Pass","End":true}}}""";
    private static final String TIMED_WAIT = """
            {"StartAt":"Hold","States":{
              "Hold":{"Type":"Wait","TimestampPath":"$.at","Next":"Fire"},
              "Fire":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"at.$":"$.at"},
                "End":true}}}""";

    private final Map<String, String> options;

    private EngineBenchmark(Map<String, String> options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        new EngineBenchmark(options).run();
    }

    private int option(String name, int defaultValue) {
        return Integer.parseInt(options.getOrDefault(name, Integer.toString(defaultValue)));
    }

    private boolean selected(String part) {
        String only = options.get("only");
        return only == null || Arrays.asList(only.split(",")).contains(part);
    }

    private void run() throws Exception {
        System.out.printf("JVM max heap %d MiB, %d CPUs%n", Runtime.getRuntime().maxMemory() >> 20,
                Runtime.getRuntime().availableProcessors());
        if (selected("http")) {
            httpStarts(option("http-starts", 20_000), option("client-threads", 8));
        }
        if (selected("lateness")) {
            lateness(option("wakeups-per-second", 1_000), option("lateness-seconds", 10));
        }
        if (selected("recovery")) {
            recovery(option("recovery-pending", 100_000));
        }
        if (selected("pending")) {
            pending(option("pending", 1_000_000));
        }
    }

    private static final class BenchRuntime implements AutoCloseable {
        final ExecutorService actions = Executors.newFixedThreadPool(2);
        final ClockTimer timer = new ClockTimer(Clock.systemUTC(), actions, "bench-timer");
        final StepFunctionsEngine local;

        BenchRuntime(Path dataDirectory, TaskResource... resources) {
            EngineBuilder builder = StepFunctionsEngine.builder()
                    .interpreter(all -> new Interpreter(timer, all, actions))
                    .taskResources(List.of(resources))
                    .timer(timer);
            if (dataDirectory != null) {
                builder.dataDirectory(dataDirectory);
            }
            local = builder.build();
        }

        StepFunctionsEngine engine() {
            return local;
        }

        @Override
        public void close() {
            local.close();
            timer.close();
            actions.shutdownNow();
        }
    }

    private void httpStarts(int count, int threads) throws Exception {
        Path data = Files.createTempDirectory("sfn-bench-http");
        try (BenchRuntime rt = new BenchRuntime(data);
                StepFunctionsServer server = StepFunctionsServer.start(rt.engine(),
                        new InetSocketAddress("127.0.0.1", 0))) {
            String machine = rt.engine().createStateMachine("bench", FAR_WAIT, ROLE, null).stateMachineArn();
            String input = expireInput(Instant.now().plus(Duration.ofDays(30)), 0);
            AtomicInteger next = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(threads);
            List<SfnClient> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                clients.add(SfnClient.builder()
                        .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                        .region(LocalAccount.region())
                        .credentialsProvider(LocalAccount.CREDENTIALS)
                        .httpClient(Apache5HttpClient.create())
                        .build());
            }
            // Warm up the clients and the server's code paths before timing.
            for (SfnClient c : clients) {
                c.startExecution(b -> b.stateMachineArn(machine).input(input));
            }
            long started = System.nanoTime();
            for (SfnClient c : clients) {
                Thread worker = new Thread(() -> {
                    while (next.getAndIncrement() < count) {
                        c.startExecution(b -> b.stateMachineArn(machine).input(input));
                    }
                    done.countDown();
                });
                worker.start();
            }
            done.await();
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("StartExecution over HTTP (SDK v2, %d client threads, durable with fsync): %d in %.2f s"
                    + " = %.0f starts/s%n", threads, count, seconds, count / seconds);
            clients.forEach(SfnClient::close);
        } finally {
            deleteRecursively(data);
        }
    }

    private void pending(int count) {
        try (BenchRuntime rt = new BenchRuntime(null)) {
            StepFunctionsEngine engine = rt.engine();
            String machine = engine.createStateMachine("pending", FAR_WAIT, ROLE, null).stateMachineArn();
            Instant far = Instant.now().plus(Duration.ofDays(300));
            long heapBefore = usedHeapAfterGc();
            long started = System.nanoTime();
            List<CompletableFuture<?>> inFlight = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                inFlight.add(engine.startExecution(machine, "item-" + i, expireInput(far.plusSeconds(i % 86_400), i)));
                if (inFlight.size() == 10_000) {
                    inFlight.forEach(CompletableFuture::join);
                    inFlight.clear();
                }
            }
            inFlight.forEach(CompletableFuture::join);
            double seconds = (System.nanoTime() - started) / 1e9;
            long heapAfter = usedHeapAfterGc();
            System.out.printf("Pending executions held: %d (open: %d), started in %.1f s; heap used %d MiB"
                    + " (%d MiB before), %.0f bytes per pending execution (engine + interpreter + timer)%n",
                    count, engine.openExecutions(), seconds, heapAfter >> 20, heapBefore >> 20,
                    (double) (heapAfter - heapBefore) / count);
            // Lets a profiler (jmap -histo:live) look at the pending executions before they go.
            sleepQuietly(Duration.ofSeconds(option("hold-seconds", 0)));
        }
    }

    private void lateness(int perSecond, int seconds) throws InterruptedException {
        int total = perSecond * seconds;
        long[] latenessMicros = new long[total];
        AtomicInteger fired = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(total);
        TaskResource probe = new TaskResource() {
            @Override
            public boolean supports(String arn) {
                return arn.endsWith(":states:::lambda:invoke");
            }

            @Override
            public CompletionStage<JsonNode> invoke(String arn, JsonNode parameters, ContextObject context) {
                Instant now = Instant.now();
                Instant due = Instant.parse(parameters.path("at").asText());
                int i = fired.getAndIncrement();
                if (i < total) {
                    latenessMicros[i] = Duration.between(due, now).toNanos() / 1_000;
                }
                all.countDown();
                return CompletableFuture.completedFuture(JsonNodeFactory.instance.objectNode());
            }
        };
        try (BenchRuntime rt = new BenchRuntime(null, probe)) {
            StepFunctionsEngine engine = rt.engine();
            String machine = engine.createStateMachine("lateness", TIMED_WAIT, ROLE, null).stateMachineArn();
            // Wait truncates timestamps to the second (as AWS does): each second's wake-ups are due together.
            Instant base = Instant.now().plusSeconds(3).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            for (int i = 0; i < total; i++) {
                Instant at = base.plusSeconds(i / perSecond);
                engine.startExecution(machine, "w-" + i, "{\"at\":\"" + at + "\"}").join();
            }
            if (Instant.now().isAfter(base)) {
                System.out.println("Warning: starting took longer than the 3 s lead; early wake-ups are late by that");
            }
            if (!all.await(seconds + 60L, TimeUnit.SECONDS)) {
                System.out.println("Lateness: only " + fired.get() + " of " + total + " fired in time");
            }
        }
        long[] sorted = Arrays.copyOf(latenessMicros, Math.min(total, fired.get()));
        Arrays.sort(sorted);
        System.out.printf("Execution wake-up lateness, %d executions due at each whole second for %d s (due ->"
                + " task invoked): p50 %.2f ms, p99 %.2f ms, max %.2f ms, early %d%n", perSecond, seconds,
                percentile(sorted, 0.50) / 1000.0, percentile(sorted, 0.99) / 1000.0,
                sorted[sorted.length - 1] / 1000.0, Arrays.stream(sorted).filter(v -> v < 0).count());
        timerLateness(perSecond, seconds);
    }

    /** The timer alone: wake-ups spread evenly, {@code perSecond} of them a second. */
    private static void timerLateness(int perSecond, int seconds) throws InterruptedException {
        int total = perSecond * seconds;
        long[] latenessMicros = new long[total];
        CountDownLatch all = new CountDownLatch(total);
        ExecutorService actions = Executors.newFixedThreadPool(2);
        try (ClockTimer timer = new ClockTimer(Clock.systemUTC(), actions, "bench-timer")) {
            Instant base = Instant.now().plusSeconds(1);
            long stepNanos = 1_000_000_000L / perSecond;
            for (int i = 0; i < total; i++) {
                int n = i;
                Instant due = base.plusNanos(stepNanos * i);
                timer.schedule(due, () -> {
                    latenessMicros[n] = Duration.between(due, Instant.now()).toNanos() / 1_000;
                    all.countDown();
                });
            }
            all.await(seconds + 30L, TimeUnit.SECONDS);
        } finally {
            actions.shutdownNow();
        }
        long[] sorted = latenessMicros.clone();
        Arrays.sort(sorted);
        System.out.printf("Timer lateness, %d wake-ups/s spread evenly for %d s: p50 %.2f ms, p99 %.2f ms,"
                + " max %.2f ms, early %d%n", perSecond, seconds, percentile(sorted, 0.50) / 1000.0,
                percentile(sorted, 0.99) / 1000.0, sorted[sorted.length - 1] / 1000.0,
                Arrays.stream(sorted).filter(v -> v < 0).count());
    }

    private void recovery(int count) throws IOException {
        Path data = Files.createTempDirectory("sfn-bench-recovery");
        try {
            try (BenchRuntime rt = new BenchRuntime(data)) {
                StepFunctionsEngine engine = rt.engine();
                String machine = engine.createStateMachine("recovery", FAR_WAIT, ROLE, null).stateMachineArn();
                Instant far = Instant.now().plus(Duration.ofDays(300));
                List<CompletableFuture<?>> inFlight = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    inFlight.add(engine.startExecution(machine, "item-" + i, expireInput(far.plusSeconds(i), i)));
                    if (inFlight.size() == 5_000) {
                        inFlight.forEach(CompletableFuture::join);
                        inFlight.clear();
                    }
                }
                inFlight.forEach(CompletableFuture::join);
            }
            System.out.printf("Data directory after %d starts: %d MiB%n", count, sizeOf(data) >> 20);
            try (BenchRuntime rt = new BenchRuntime(data)) {
                Recovery r = rt.local.recovery();
                System.out.printf("Restart from the journal: %d records replayed, %d pending executions resumed in"
                        + " %d ms%n", r.recordsReplayed(), r.executionsResumed(), r.duration().toMillis());
                sleepQuietly(Duration.ofSeconds(5));
            }
            try (BenchRuntime rt = new BenchRuntime(data)) {
                Recovery r = rt.local.recovery();
                System.out.printf("Restart from a snapshot: %d records replayed, %d pending executions resumed in"
                        + " %d ms%n", r.recordsReplayed(), r.executionsResumed(), r.duration().toMillis());
            }
        } finally {
            deleteRecursively(data);
        }
    }

    private static String expireInput(Instant expireAt, int i) {
        return "{\"table\":\"bench\",\"key\":{\"pk\":{\"S\":\"item-" + i + "\"}},\"ttlAttribute\":\"ttl\",\"ttl\":\""
                + expireAt.getEpochSecond() + "\",\"expireAt\":\"" + expireAt + "\",\"horizonHops\":0,"
                + "\"chainName\":\"item-" + i + "\"}";
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long sizeOf(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
