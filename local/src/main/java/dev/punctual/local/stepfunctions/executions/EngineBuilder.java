package dev.punctual.local.stepfunctions.executions;

import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.stepfunctions.mocking.MockConfiguration;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.Timer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Builds the local Step Functions engine: an interpreter with the given task resources plus the
 * engine's own {@code states:startExecution}, a timer, and optionally a data directory that makes every
 * execution survive a crash (the engine replays it and resumes its runs before {@link #build} returns, or,
 * {@link #resumeRecoveredLater}, when its owner says so).
 *
 * <pre>{@code
 * StepFunctionsEngine engine = StepFunctionsEngine.builder()
 *         .interpreter(resources -> new Interpreter(timer, resources, taskExecutor))
 *         .taskResources(List.of(dynamoDbTasks))
 *         .timer(timer)
 *         .dataDirectory(Path.of("data/sfn"))
 *         .build();
 * }</pre>
 *
 * <p>Interpreter and timer are required.
 */
public final class EngineBuilder {

    private static final System.Logger LOG = System.getLogger(EngineBuilder.class.getName());

    private Function<List<TaskResource>, Interpreter> interpreter;
    private final List<TaskResource> taskResources = new ArrayList<>();
    private Timer timer;
    private Path dataDirectory;
    private String region = LocalAccount.REGION;
    private String accountId = LocalAccount.ACCOUNT_ID;
    private int maxOpenExecutions = StepFunctionsEngine.DEFAULT_MAX_OPEN_EXECUTIONS;
    private Retention closedRetention = Retained.CLOSED_EXECUTIONS.defaults();
    /**
     * The least segment before a compaction, which otherwise runs once the segment holds a twenty-fifth
     * of the state on disk ({@link JournalCompaction#segmentLimit}). The share's bound (two samples of a
     * steady journal within 8 % of each other) holds only where the state is at least 25 floors, so the
     * floor sits below a twenty-fifth of windowed mode's state: the state machines (13 KB), its running
     * bucket executions and an hour of closed ones kept, about 250 KB at 150 writes a second, whose segment
     * then rolls at about 10 KB (at 16 KiB, segment and closed-execution file together could swing it by
     * 13 %; 64 KiB swung a younger one by half). It keeps an engine whose state is tiny from paying a
     * compaction's fsyncs every record or two.
     */
    private long segmentBytes = 4L * 1024;
    private int launcherThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private MockConfiguration mockConfiguration = MockConfiguration.EMPTY;
    private InFlight work = new InFlight();
    private boolean resumeLater;

    EngineBuilder() {
    }

    /** Makes the interpreter from every task resource (those given here plus startExecution). */
    public EngineBuilder interpreter(Function<List<TaskResource>, Interpreter> factory) {
        this.interpreter = factory;
        return this;
    }

    public EngineBuilder taskResources(List<? extends TaskResource> resources) {
        taskResources.addAll(resources);
        return this;
    }

    public EngineBuilder timer(Timer timer) {
        this.timer = timer;
        return this;
    }

    /** Where the journal lives; without one everything stays in memory. */
    public EngineBuilder dataDirectory(Path directory) {
        this.dataDirectory = directory;
        return this;
    }

    public EngineBuilder region(String region) {
        this.region = region;
        return this;
    }

    public EngineBuilder accountId(String accountId) {
        this.accountId = accountId;
        return this;
    }

    /** Open executions beyond which StartExecution fails with {@code ExecutionLimitExceeded}. */
    public EngineBuilder maxOpenExecutions(int max) {
        this.maxOpenExecutions = max;
        return this;
    }

    /**
     * How many closed executions to keep, and for how long (AWS keeps them 90 days); the oldest closed
     * go first, and a forgotten one answers {@code ExecutionDoesNotExist}.
     */
    public EngineBuilder closedExecutionRetention(Retention retention) {
        this.closedRetention = Objects.requireNonNull(retention, "retention");
        return this;
    }

    /**
     * The least journal segment size after which a compaction runs; past the first one, the segment also
     * grows to a twenty-fifth of the state on disk, and to a fifth of the snapshot, first.
     */
    public EngineBuilder journalSegmentBytes(long bytes) {
        this.segmentBytes = bytes;
        return this;
    }

    public EngineBuilder launcherThreads(int threads) {
        this.launcherThreads = threads;
        return this;
    }

    /**
     * The mock configuration (AWS Step Functions Local's {@code MockConfigFile.json}) whose test cases an
     * execution uses when StartExecution names one after the state machine ARN: {@code <ARN>#<test case>}.
     */
    public EngineBuilder mockConfiguration(MockConfiguration configuration) {
        this.mockConfiguration = Objects.requireNonNull(configuration, "configuration");
        return this;
    }

    /** Where the engine's launcher threads count their work, so its owner can tell when it is idle. */
    public EngineBuilder inFlight(InFlight counter) {
        this.work = Objects.requireNonNull(counter, "counter");
        return this;
    }

    /**
     * {@link #build} replays the data directory but leaves the executions it recovers waiting until
     * {@link StepFunctionsEngine#resumeRecovered()}: for an owner that registers what their Tasks invoke (the
     * local runtime's Lambda functions) after the engine is built. A recovered Task runs again as soon as its
     * execution resumes, and would find nothing to invoke.
     */
    public EngineBuilder resumeRecoveredLater() {
        this.resumeLater = true;
        return this;
    }

    public StepFunctionsEngine build() {
        Objects.requireNonNull(interpreter, "interpreter");
        Objects.requireNonNull(timer, "timer");
        AtomicReference<StepFunctionsEngine> engineRef = new AtomicReference<>();
        List<TaskResource> resources = new ArrayList<>(taskResources);
        resources.add(new StartExecutionTaskResource(engineRef::get));
        StepFunctionsEngine engine = new StepFunctionsEngine(interpreter.apply(List.copyOf(resources)), timer,
                LocalAccount.PARTITION, region, accountId, maxOpenExecutions, closedRetention, launcherThreads, work);
        engineRef.set(engine);
        engine.useMockConfiguration(mockConfiguration);
        if (dataDirectory == null) {
            return engine;
        }
        long started = System.nanoTime();
        FileJournal.Opened opened = FileJournal.open(dataDirectory, engine.durability()::replay, segmentBytes);
        engine.useJournal(opened.journal());
        opened.journal().snapshotsFrom(engine.durability());
        if (opened.recordsReplayed() > 0) {
            // Compact now, so the next start replays a snapshot rather than this whole journal again.
            opened.journal().snapshotNow();
        }
        Duration replay = Duration.ofNanos(System.nanoTime() - started);
        engine.recoverLater(() -> {
            long resuming = System.nanoTime();
            int resumed = engine.durability().resumeRecovered();
            Recovery recovery = new Recovery(opened.recordsReplayed(), resumed,
                    replay.plusNanos(System.nanoTime() - resuming));
            LOG.log(System.Logger.Level.INFO, "Step Functions data directory " + dataDirectory + ": replayed "
                    + recovery.recordsReplayed() + " records, resumed " + resumed + " executions in "
                    + recovery.duration().toMillis() + " ms");
            return recovery;
        });
        if (!resumeLater) {
            engine.resumeRecovered();
        }
        return engine;
    }
}
