package dev.punctual.tests.moto;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.functions.DaemonThreads;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.mocking.MockConfiguration;
import dev.punctual.local.stepfunctions.tasks.DynamoDbTaskResource;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.SfnException;
import software.amazon.awssdk.services.sfn.model.StateMachineType;
import software.amazon.awssdk.services.sfn.model.TaskFailedEventDetails;

/**
 * The four shipped state machines on two interpreters, from the same inputs: our engine and moto's
 * (LocalStack's), each behind its own Step Functions API, read back through the same SDK client. Their
 * Lambda tasks answer from one mock configuration (AWS Step Functions Local's format,
 * {@code moto/differential-mock-config.json}), which both read; the DynamoDB deletes, the
 * {@code startExecution.sync:2} child and the backfill's successor start run for real on both, against
 * moto's DynamoDB and each side's own Step Functions, except where a case needs a failure, which the mock
 * configuration then gives both.
 *
 * <p>For each case the two must agree on final status, output, error, cause and the order of the states
 * entered. Where they do not, the AWS documentation decided which side is right; each difference in
 * {@link #MOTO_DEVIATIONS} is moto's (docs/engine.md lists it with its reference), and the test checks it
 * still shows, so that a moto that mends it is noticed.
 *
 * <p>Our engine runs on a manual timer moved whenever it is idle ({@link SkipWhenIdle}): a bucket whose
 * runner fails backs off eight times, up to 30 s each, in no wall time. moto's side runs on the wall
 * clock, and its Waits are in the past. A case in which moto departs from AWS by going on where AWS would
 * have ended (a page loop that never ends, a {@code States.Runtime} retried through a minute of jittered
 * backoff) is watched until it shows that departure ({@link #SHOWN_ON_MOTO}), then stopped.
 */
class MotoDifferentialTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String TABLE = "differential-items";
    private static final String FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:punctual-mocked";
    private static final String RUNNER = "punctual-run-bucket";
    /**
     * How long a case may go with no new event in its history, until it closes or shows its recorded
     * departure: longer than the longest retry backoff of the shipped machines (MaxDelaySeconds 30), which
     * moto waits out on the wall clock.
     */
    private static final Duration STALL = Duration.ofSeconds(60);

    /** The states of a backfill's Map iteration, entered by its segments at once. */
    private static final Set<String> BACKFILL_ITERATION = Set.of("ScanPage", "MorePages", "SegmentPaused");
    private static final Pattern EVENT_ID = Pattern.compile("#\\d+");
    private static final String EXPIRED = "{\"outcome\":\"Expired\",\"deletedAt\":\"<entered time>\"}";
    private static final List<String> ITEM_DELETED = List.of("BeyondHorizon", "WaitUntilExpiry", "DeleteIfUnchanged", "Expired");
    private static final List<String> BUCKET = List.of("WaitUntilDue", "RunBucket");

    /** What AWS does in each case, by its documentation: our engine must show exactly this. */
    private static final Map<String, Outcome> AWS = Map.of(
            "expired", Outcome.succeeded(EXPIRED, ITEM_DELETED),
            "superseded", Outcome.succeeded("{\"outcome\":\"Superseded\"}",
                    List.of("BeyondHorizon", "WaitUntilExpiry", "DeleteIfUnchanged", "Superseded")),
            "throttled", Outcome.succeeded(EXPIRED, ITEM_DELETED),
            "timed-out", Outcome.succeeded(EXPIRED, ITEM_DELETED),
            "runner-done", Outcome.succeeded("{\"bucket\":\"m-29000000\",\"deleted\":3,\"superseded\":1}", BUCKET),
            "runner-fails", new Outcome(ExecutionStatus.FAILED, null, "States.TaskFailed", "The bucket runner failed.", BUCKET),
            "runner-steps-with-a-retry", Outcome.succeeded("{\"bucket\":\"m-29000000\",\"deleted\":2,\"superseded\":0}",
                    BUCKET),
            "backfill-resumed", Outcome.succeeded("{\"complete\":true,\"table\":\"orders\",\"run\":\"run-1\"}",
                    List.of("PrepareRun", "ScanSegments", "MorePages", "ScanPage", "SegmentPaused", "FinishRun",
                            "RunComplete", "Backfilled")),
            // Four pages over two segments: each response answers one invocation, whichever segment makes it.
            "backfill-pages", Outcome.succeeded("{\"outcome\":\"ContinuedAsNew\",\"successor\":\"backfill-resumed\"}",
                    List.of("PrepareRun", "ScanSegments", "MorePages", "MorePages", "MorePages", "MorePages", "ScanPage",
                            "ScanPage", "ScanPage", "ScanPage", "SegmentPaused", "SegmentPaused", "FinishRun", "RunComplete",
                            "ContinueAsNewExecution", "SuccessorAlreadyStarted")));

    /** Cases where moto departs from AWS: what it does instead, and what it shows (docs/engine.md, "And against moto's"). */
    private static final Map<String, Deviation> MOTO_DEVIATIONS = Map.of(
            "runner-steps-with-a-retry", new Deviation(
                    "as runner-done: its runner child, on an ARN naming a test case, is not run; RunBucket fails with"
                            + " States.Runtime 'StateMachineArn', and moto retries that",
                    retriedRuntime("'StateMachineArn'")),
            "backfill-pages", new Deviation(
                    "moto answers a mocked Task by its retry count, not its invocation: every ScanPage gets response 0"
                            + " ('more': true), so a segment never ends; in some runs two iterations at once fail instead"
                            + " ('dict' object has no attribute 'region'). Either way not AWS's outcome",
                    null),
            "runner-fails", new Deviation(
                    "a mocked Throw of States.TaskFailed is refused as a custom error name: States.Runtime, and moto"
                            + " retries that",
                    retriedRuntime("Custom Error Names MUST NOT begin with the prefix 'States.', got 'States.TaskFailed'.")),
            "runner-done", new Deviation(
                    "startExecution.sync:2 on a child ARN naming a test case fails with States.Runtime 'StateMachineArn',"
                            + " and moto retries that",
                    retriedRuntime("'StateMachineArn'")));
    /**
     * The cases in which moto goes on where AWS ends, each with the history that shows it has: watched until
     * then (or until it closes), and stopped. A bucket whose RunBucket failed with a {@code States.Runtime}
     * has shown it once a second attempt has failed too, as AWS never retries one ("A retry or catch on
     * States.ALL won't catch States.Runtime errors"); its outcome is the first attempt's error and cause, the
     * execution still RUNNING. The paging backfill has shown it once a segment has scanned more pages than
     * the test case answers (four, over both segments).
     */
    private static final Map<String, Predicate<List<HistoryEvent>>> SHOWN_ON_MOTO = Map.of(
            "runner-done", MotoDifferentialTest::failedTwice,
            "runner-fails", MotoDifferentialTest::failedTwice,
            "runner-steps-with-a-retry", MotoDifferentialTest::failedTwice,
            "backfill-pages", history -> entered(history).stream().filter("ScanPage"::equals).count() > 4);
    private static final Map<String, CompletableFuture<Sides>> RUNS = new ConcurrentHashMap<>();

    private static MotoServer moto;
    private static StepFunctionsEngine engine;
    private static StepFunctionsServer server;
    private static SkipWhenIdle time;
    private static ExecutorService tasks;
    private static ExecutorService cases;
    private static DynamoDbClient dynamoDb;
    private static SfnClient ours;
    private static SfnClient theirs;

    @BeforeAll
    static void start() throws IOException {
        Path config = Path.of("target", "moto", "differential-mock-config.json");
        Files.createDirectories(config.getParent());
        try (InputStream in = Objects.requireNonNull(MotoDifferentialTest.class.getResourceAsStream(
                "/moto/differential-mock-config.json"))) {
            Files.write(config, in.readAllBytes());
        }
        moto = MotoServer.start(Path.of("target", "moto", "moto-differential.log"),
                List.of("--mock-config", config.toAbsolutePath().toString()));
        dynamoDb = LocalClients.dynamoDb(moto.endpoint());
        theirs = LocalClients.stepFunctions(moto.endpoint());
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        InFlight work = new InFlight();
        tasks = work.pool(16, DaemonThreads.named("differential-task"));
        engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, tasks))
                .taskResources(List.of(new DynamoDbTaskResource(dynamoDb), new NoFunctions()))
                .timer(timer)
                .inFlight(work)
                .mockConfiguration(MockConfiguration.read(config))
                .build();
        time = SkipWhenIdle.start(timer, work);
        server = StepFunctionsServer.start(engine, new InetSocketAddress("127.0.0.1", 0));
        ours = LocalClients.stepFunctions(java.net.URI.create("http://127.0.0.1:" + server.port()));

        dynamoDb.createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH)));
        for (SfnClient sfn : List.of(ours, theirs)) {
            String runner = create(sfn, RUNNER, StateMachineDefinitions.runBucket("aws", FUNCTION), StateMachineType.EXPRESS);
            create(sfn, "punctual-expire-item", StateMachineDefinitions.expireItem("aws"), StateMachineType.STANDARD);
            create(sfn, "punctual-expire-bucket", StateMachineDefinitions.expireBucket("aws", runner),
                    StateMachineType.STANDARD);
            // The runner's test case travels in its ARN, the way a parent names a child's test case.
            create(sfn, "punctual-expire-bucket-done", StateMachineDefinitions.expireBucket("aws",
                    runner + "#DoneInOneStep"), StateMachineType.STANDARD);
            create(sfn, "punctual-expire-bucket-steps", StateMachineDefinitions.expireBucket("aws",
                    runner + "#StepsWithARetry"), StateMachineType.STANDARD);
            create(sfn, "punctual-backfill", StateMachineDefinitions.backfill("aws", FUNCTION), StateMachineType.STANDARD);
        }
        startAll();
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {ours, theirs, dynamoDb, server, engine, time, moto}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException("Could not close " + closeable, e);
                }
            }
        }
        for (ExecutorService executor : new ExecutorService[] {cases, tasks}) {
            if (executor != null) {
                executor.shutdownNow();
            }
        }
    }

    private static String create(SfnClient sfn, String name, String definition, StateMachineType type) {
        return sfn.createStateMachine(b -> b.name(name).definition(definition).roleArn(ROLE).type(type)).stateMachineArn();
    }

    @Test
    void expireItem_expired() {
        verdict("expired");
    }

    @Test
    void expireItem_superseded() {
        verdict("superseded");
    }

    @Test
    void expireItem_throttledDeleteRetried() {
        verdict("throttled");
    }

    @Test
    void expireItem_taskTimeoutRetried() {
        verdict("timed-out");
    }

    @Test
    void expireBucket_runnerDoneInOneStep_outputThroughSync2() {
        verdict("runner-done");
    }

    @Test
    void expireBucket_runnerFailsEveryTime_bucketFails() {
        verdict("runner-fails");
    }

    @Test
    void expireBucket_runnerStepsWithAFailingStepRetried() {
        verdict("runner-steps-with-a-retry");
    }

    @Test
    void backfill_resumedRunCompletes() {
        verdict("backfill-resumed");
    }

    @Test
    void backfill_severalPagesThenContinuesAsItsSuccessor() {
        verdict("backfill-pages");
    }

    // ------------------------------------------------------------------------------------------ the run

    /**
     * Starts every case at once, each on its own executions of one moto and one engine: a case runs on
     * our engine, then on moto (the item cases share moto's table between the two sides), and cases that
     * depend on another (the paging backfill's successor is the resumed one) run after it.
     */
    private static void startAll() {
        List<List<Case>> chains = List.of(
                List.of(Case.of("expired", "punctual-expire-item", null, itemInput("expired", "1700000000"))
                        .before(() -> putItem("expired", "1700000000"))),
                List.of(Case.of("superseded", "punctual-expire-item", null, itemInput("superseded", "1700000000"))
                        .before(() -> putItem("superseded", "1700000999"))),
                List.of(Case.of("throttled", "punctual-expire-item", "ThrottledDeleteRetried",
                        itemInput("throttled", "1700000000"))),
                List.of(Case.of("timed-out", "punctual-expire-item", "DeleteTimedOutRetried",
                        itemInput("timed-out", "1700000000"))),
                List.of(Case.of("runner-done", "punctual-expire-bucket-done", null, bucketInput())),
                List.of(Case.of("runner-fails", "punctual-expire-bucket", "RunnerAlwaysFails", bucketInput())),
                List.of(Case.of("runner-steps-with-a-retry", "punctual-expire-bucket-steps", null, bucketInput())),
                // The resumed run first: the paging run's successor then finds its name taken, as a successor
                // that already started, and ends the way a duplicate start does (SuccessorAlreadyStarted).
                List.of(Case.of("backfill-resumed", "punctual-backfill", "Resumed", "{\"table\":\"orders\"}")
                                .concurrently(BACKFILL_ITERATION),
                        Case.of("backfill-pages", "punctual-backfill", "SeveralPages", "{\"table\":\"orders\"}")
                                .concurrently(BACKFILL_ITERATION)));
        cases = Executors.newFixedThreadPool(chains.size());
        for (List<Case> chain : chains) {
            CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
            for (Case c : chain) {
                CompletableFuture<Sides> sides = previous.thenApplyAsync(ignored -> {
                    Outcome mine = run(ours, c, null);
                    System.out.printf("differential %s ours: %s%n", c.name, mine);
                    Outcome moto = run(theirs, c, SHOWN_ON_MOTO.get(c.name));
                    System.out.printf("differential %s moto: %s%n", c.name, moto);
                    return new Sides(mine, moto);
                }, cases);
                RUNS.put(c.name, sides);
                previous = sides.thenApply(ignored -> null);
            }
        }
    }

    /**
     * The verdict on one case: our engine shows what AWS documents, and moto shows the same, or, where
     * it departs from AWS, exactly the departure recorded for it. Either side changing fails the case.
     */
    private static void verdict(String name) {
        Sides sides = RUNS.get(name).join();
        Outcome aws = AWS.get(name);
        assertThat(sides.ours()).as("our engine does what AWS documents on " + name).isEqualTo(aws);
        Deviation deviation = MOTO_DEVIATIONS.get(name);
        if (deviation == null) {
            assertThat(sides.moto()).as("moto agrees with AWS (and our engine) on " + name).isEqualTo(aws);
        } else if (deviation.shows() == null) {
            // moto's departure here takes one of two shapes from run to run; neither is a success.
            assertThat(sides.moto().status()).as("moto still departs from AWS on " + name + ": " + deviation.what())
                    .isNotEqualTo(ExecutionStatus.SUCCEEDED);
        } else {
            assertThat(sides.moto()).as("moto still departs from AWS on " + name + ": " + deviation.what())
                    .isEqualTo(deviation.shows());
        }
    }

    /**
     * Runs one case on one side until its execution closes, or, where {@code departed} is given, until its
     * history shows that departure, and returns its outcome as the watch left it.
     */
    private static Outcome run(SfnClient sfn, Case c, Predicate<List<HistoryEvent>> departed) {
        c.before.run();
        String machine = arnOf(sfn, c.machine);
        Supplier<String> start = () -> sfn.startExecution(b -> b.stateMachineArn(
                c.testCase == null ? machine : machine + "#" + c.testCase).name(c.name).input(c.input)).executionArn();
        String execution = sfn == ours ? time.during(start) : start.get();
        Await.untilProgressingAfter(() -> c.name + (departed == null ? " closes" : " closes or shows its departure"),
                Instant.MIN, STALL, Duration.ofMillis(100), () -> readableEvents(sfn, execution).size(),
                () -> sfn.describeExecution(b -> b.executionArn(execution)).status() != ExecutionStatus.RUNNING
                        || departed != null && departed.test(readableEvents(sfn, execution)));
        // What StopExecution makes of a case still running is not compared: on moto it races (ABORTED in some
        // runs, still RUNNING in others), and it is only how the test cleans up.
        DescribeExecutionResponse described = sfn.describeExecution(b -> b.executionArn(execution));
        boolean stillRunning = described.status() == ExecutionStatus.RUNNING;
        Optional<TaskFailedEventDetails> firstFailure = stillRunning
                ? readableEvents(sfn, execution).stream().map(HistoryEvent::taskFailedEventDetails).filter(Objects::nonNull).findFirst()
                : Optional.empty();
        String error = firstFailure.map(TaskFailedEventDetails::error).orElse(described.error());
        String cause = firstFailure.map(TaskFailedEventDetails::cause).orElse(described.cause());
        Outcome outcome = new Outcome(described.status(), normalized(described.output()), error,
                cause == null ? null : EVENT_ID.matcher(cause).replaceAll("#<event id>"),
                history(sfn, execution, c.concurrently));
        if (stillRunning) {
            sfn.stopExecution(b -> b.executionArn(execution));
            // A runner it started would run on after it; none should, but one that loops would spin to the end.
            sfn.listExecutions(b -> b.stateMachineArn(arnOf(sfn, RUNNER)).statusFilter(ExecutionStatus.RUNNING))
                    .executions().forEach(child -> sfn.stopExecution(b -> b.executionArn(child.executionArn())));
        }
        return outcome;
    }

    /** Whether a Task has failed twice: a retry, whatever the Retry said. */
    private static boolean failedTwice(List<HistoryEvent> history) {
        return history.stream().filter(event -> event.taskFailedEventDetails() != null).count() >= 2;
    }

    /** The states entered, or, where the service cannot give the history, what it answered instead. */
    private static List<String> history(SfnClient sfn, String execution, Set<String> concurrently) {
        try {
            return inOrder(entered(events(sfn, execution)), concurrently);
        } catch (SfnException unreadable) {
            return List.of("<GetExecutionHistory failed: HTTP " + unreadable.statusCode() + ">");
        }
    }

    private static String arnOf(SfnClient sfn, String machine) {
        return sfn.listStateMachines(b -> { }).stateMachines().stream()
                .filter(m -> m.name().equals(machine)).findFirst().orElseThrow().stateMachineArn();
    }

    /** An execution's whole history, in order. */
    private static List<HistoryEvent> events(SfnClient sfn, String execution) {
        List<HistoryEvent> events = new ArrayList<>();
        String token = null;
        do {
            String page = token;
            var history = sfn.getExecutionHistory(b -> b.executionArn(execution).nextToken(page).maxResults(1000));
            events.addAll(history.events());
            token = history.nextToken();
        } while (token != null);
        return events;
    }

    /** The history, or none where moto cannot give it (HTTP 500 once its Map iterations failed: difference 1). */
    private static List<HistoryEvent> readableEvents(SfnClient sfn, String execution) {
        try {
            return events(sfn, execution);
        } catch (SfnException unreadable) {
            return List.of();
        }
    }

    /** The states entered, in the history's order. */
    private static List<String> entered(List<HistoryEvent> history) {
        return history.stream().map(HistoryEvent::stateEnteredEventDetails).filter(Objects::nonNull)
                .map(details -> details.name()).toList();
    }

    /**
     * The states entered, each run of states inside concurrent Map iterations sorted: their order within
     * the run is the iterations' race, on AWS as here; the order of everything else is compared as it is.
     */
    private static List<String> inOrder(List<String> entered, Set<String> concurrent) {
        List<String> ordered = new ArrayList<>(entered.size());
        List<String> run = new ArrayList<>();
        for (String name : entered) {
            if (concurrent.contains(name)) {
                run.add(name);
                continue;
            }
            run.sort(null);
            ordered.addAll(run);
            run.clear();
            ordered.add(name);
        }
        run.sort(null);
        ordered.addAll(run);
        return ordered;
    }

    /** The output with its one instant ({@code deletedAt}, the state's entered time) reduced to its presence. */
    private static String normalized(String output) {
        if (output == null) {
            return null;
        }
        try {
            JsonNode node = MAPPER.readTree(output);
            if (node instanceof ObjectNode object && object.has("deletedAt")) {
                object.put("deletedAt", "<entered time>");
            }
            return MAPPER.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String itemInput(String id, String ttl) {
        return "{\"table\":\"" + TABLE + "\",\"key\":{\"id\":{\"S\":\"" + id + "\"}},\"ttlAttribute\":\"expiresAt\","
                + "\"ttl\":\"" + ttl + "\",\"expireAt\":\"2023-11-14T22:13:20Z\",\"horizonHops\":0,\"chainName\":\"" + id + "\"}";
    }

    private static String bucketInput() {
        return "{\"wakeAt\":\"2020-01-01T00:00:00Z\",\"table\":\"orders\",\"bucket\":\"m-29000000\"}";
    }

    private static void putItem(String id, String ttl) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put("id", AttributeValue.fromS(id));
        item.put("expiresAt", AttributeValue.fromN(ttl));
        dynamoDb.putItem(b -> b.tableName(TABLE).item(item));
    }

    /** One case: the same state machine, test case and input on both sides, after the same setup. */
    private record Case(String name, String machine, String testCase, String input, Runnable before,
            Set<String> concurrently) {
        static Case of(String name, String machine, String testCase, String input) {
            return new Case(name, machine, testCase, input, () -> { }, Set.of());
        }

        Case before(Runnable setup) {
            return new Case(name, machine, testCase, input, setup, concurrently);
        }

        /** The states entered by Map iterations that run at once. */
        Case concurrently(Set<String> states) {
            return new Case(name, machine, testCase, input, before, states);
        }
    }

    /** What is compared. */
    private record Outcome(ExecutionStatus status, String output, String error, String cause, List<String> statesEntered) {
        static Outcome succeeded(String output, List<String> statesEntered) {
            return new Outcome(ExecutionStatus.SUCCEEDED, output, null, null, statesEntered);
        }
    }

    /** One case on both sides. */
    private record Sides(Outcome ours, Outcome moto) {
    }

    /** Where moto departs from AWS: what it does, and the outcome that shows it ({@code null}: it varies, never a success). */
    private record Deviation(String what, Outcome shows) {
    }

    /** A bucket whose RunBucket failed with a States.Runtime of {@code cause} and is being retried. */
    private static Outcome retriedRuntime(String cause) {
        return new Outcome(ExecutionStatus.RUNNING, null, "States.Runtime", cause, BUCKET);
    }

    /** Lambda here is only ever mocked: a call that reaches it fails, as a function that does not exist does. */
    private static final class NoFunctions implements TaskResource {
        @Override
        public boolean supports(String resourceArn) {
            return resourceArn.endsWith(":lambda:invoke");
        }

        @Override
        public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
            return CompletableFuture.failedFuture(new TaskError("Lambda.ResourceNotFoundException",
                    "No function is deployed here; the test case should have mocked this state"));
        }
    }
}
