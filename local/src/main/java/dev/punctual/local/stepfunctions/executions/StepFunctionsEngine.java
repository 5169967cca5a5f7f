package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.AslInterpreter;
import dev.punctual.local.stepfunctions.asl.Checkpoint;
import dev.punctual.local.stepfunctions.asl.ExecutionContext;
import dev.punctual.local.stepfunctions.asl.ExecutionOutcome;
import dev.punctual.local.stepfunctions.asl.ExecutionRun;
import dev.punctual.local.stepfunctions.asl.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.ParsedDefinition;
import dev.punctual.local.stepfunctions.quotas.StepFunctionsQuota;
import dev.punctual.local.time.Timer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The Step Functions backend: the state machine registry and Standard executions, with AWS's rules
 * for names, idempotent StartExecution, StopExecution, the one-year execution limit, history and
 * pagination. Runs are delegated to an {@link AslInterpreter}; every change goes to a
 * {@link Journal} first when the engine is durable.
 *
 * <p>Build it through {@link StepFunctionsLocal}.
 */
public final class StepFunctionsEngine implements AutoCloseable, Journal.SnapshotSource {

    /** A Standard execution runs at most one year, then times out with {@code States.Timeout}. */
    public static final Duration MAX_EXECUTION_DURATION = Duration.ofDays(365);
    /** The largest execution input or output, in UTF-8 bytes. */
    public static final int MAX_PAYLOAD_BYTES = 262_144;
    /** The largest execution history. */
    public static final int MAX_HISTORY_EVENTS = 25_000;
    /** AWS's quota of open executions per account and Region. */
    public static final int DEFAULT_MAX_OPEN_EXECUTIONS =
            (int) StepFunctionsQuota.OPEN_EXECUTIONS.largestRegions();

    private static final System.Logger LOG = System.getLogger(StepFunctionsEngine.class.getName());
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final String STANDARD = "STANDARD";
    /** Waits ending sooner than this stay with the interpreter; longer ones are parked. */
    private static final long PARK_AFTER_MILLIS = 5_000;

    private final AslInterpreter interpreter;
    private final Timer timer;
    private final Clock clock;
    private final Arns arns;
    private final int maxOpenExecutions;
    private final int closedRetention;
    private final Map<String, StateMachine> machines = new ConcurrentHashMap<>();
    private final AtomicInteger openExecutions = new AtomicInteger();
    private final AtomicInteger peakOpenExecutions = new AtomicInteger();
    private final LongAdder billedTransitions = new LongAdder();
    private final LongAdder startExecutionCalls = new LongAdder();
    private final ExecutorService launcher;
    private final ConcurrentLinkedQueue<Execution> closedOrder = new ConcurrentLinkedQueue<>();
    private final AtomicInteger closedCount = new AtomicInteger();
    private final AtomicLong lastCreationMillis = new AtomicLong();
    private final ArrayDeque<Execution> byStart = new ArrayDeque<>();
    private final java.util.concurrent.CopyOnWriteArrayList<ExecutionListener> listeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private Timer.Cancellable deadlineSweep;
    private volatile Journal journal = Journal.IN_MEMORY;

    StepFunctionsEngine(AslInterpreter interpreter, Timer timer, String partition, String region, String accountId,
            int maxOpenExecutions, int closedRetention, int launcherThreads) {
        this.interpreter = interpreter;
        this.timer = timer;
        this.clock = timer.clock();
        this.arns = new Arns(partition, region, accountId);
        this.maxOpenExecutions = maxOpenExecutions;
        this.closedRetention = closedRetention;
        this.launcher = new ThreadPoolExecutor(launcherThreads, launcherThreads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread t = new Thread(runnable, "sfn-launcher");
                    t.setDaemon(true);
                    return t;
                });
    }

    void useJournal(Journal journal) {
        this.journal = journal;
    }

    /** The ARN a state machine of this name has here. */
    public String stateMachineArn(String name) {
        return arns.stateMachine(name);
    }

    /** Tells {@code listener} of every execution started or closed from now on. */
    public void addListener(ExecutionListener listener) {
        listeners.add(listener);
    }

    /** Stops telling {@code listener}. */
    public void removeListener(ExecutionListener listener) {
        listeners.remove(listener);
    }

    /** Running executions, all state machines together. */
    public int openExecutions() {
        return openExecutions.get();
    }

    /** The most executions open at once since the last {@link #resetPeakOpenExecutions()}. */
    public int peakOpenExecutions() {
        return peakOpenExecutions.get();
    }

    /** Starts measuring the peak of open executions again from the current count. */
    public void resetPeakOpenExecutions() {
        peakOpenExecutions.set(openExecutions.get());
    }

    /**
     * State transitions as AWS bills them: every state entered, and every retry of a Task (each
     * attempt is scheduled anew). Counted since the engine started; replayed history is not billed again.
     */
    public long billedTransitions() {
        return billedTransitions.sum();
    }

    /** StartExecution calls received, accepted or not. */
    public long startExecutionCalls() {
        return startExecutionCalls.sum();
    }

    // ---------------------------------------------------------------- state machines

    public StateMachineDescription createStateMachine(String name, String definitionJson, String roleArn, String type) {
        Names.validate("name", name);
        validateType(type);
        Arns.validateRoleArn(roleArn);
        ParsedDefinition parsed = parse(definitionJson);
        synchronized (machines) {
            StateMachine existing = machines.get(name);
            if (existing != null) {
                Definition current = existing.current;
                if (!existing.deleting && current.parsed().json().equals(definitionJson)
                        && current.roleArn().equals(roleArn)) {
                    return describe(existing);
                }
                throw new StepFunctionsException(existing.deleting ? ErrorCode.STATE_MACHINE_DELETING
                        : ErrorCode.STATE_MACHINE_ALREADY_EXISTS, "State Machine Already Exists: '" + existing.arn
                        + "'" + (existing.deleting ? " (it is being deleted: its executions are still running)"
                        : " with a different definition or role; update it or pick another name"));
            }
            long now = clock.millis();
            long creation = lastCreationMillis.updateAndGet(last -> Math.max(now, last + 1));
            StateMachine sm = new StateMachine(this, name, arns.stateMachine(name), creation,
                    new Definition(1, parsed, roleArn, creation));
            machines.put(name, sm);
            journal.append(JournalRecords.stateMachinePut(sm, sm.current)).join();
            return describe(sm);
        }
    }

    public StateMachineDescription describeStateMachine(String stateMachineArn) {
        return describe(machine(stateMachineArn));
    }

    public Page<StateMachineDescription> listStateMachines(int maxResults, String nextToken) {
        String after = nextToken == null ? null : decodeToken(nextToken, "s");
        List<StateMachine> sorted = new ArrayList<>(machines.values());
        sorted.sort(Comparator.comparing(sm -> sm.name));
        List<StateMachineDescription> items = new ArrayList<>();
        String next = null;
        for (StateMachine sm : sorted) {
            if (after != null && sm.name.compareTo(after) <= 0) {
                continue;
            }
            if (items.size() == maxResults) {
                next = encodeToken("s", items.get(items.size() - 1).name());
                break;
            }
            items.add(describe(sm));
        }
        return new Page<>(items, next);
    }

    /** Updates the definition and/or role; running executions finish on the revision they started with. */
    public Instant updateStateMachine(String stateMachineArn, String definitionJson, String roleArn) {
        if (definitionJson == null && roleArn == null) {
            throw new StepFunctionsException(ErrorCode.MISSING_REQUIRED_PARAMETER,
                    "Either the definition or the roleArn must be specified");
        }
        if (roleArn != null) {
            Arns.validateRoleArn(roleArn);
        }
        ParsedDefinition parsed = definitionJson == null ? null : parse(definitionJson);
        synchronized (machines) {
            StateMachine sm = machine(stateMachineArn);
            if (sm.deleting) {
                throw new StepFunctionsException(ErrorCode.STATE_MACHINE_DELETING,
                        "State machine '" + sm.arn + "' is being deleted");
            }
            Definition current = sm.current;
            long now = clock.millis();
            Definition next = new Definition(current.revision() + 1, parsed == null ? current.parsed() : parsed,
                    roleArn == null ? current.roleArn() : roleArn, now);
            sm.addRevision(next);
            journal.append(JournalRecords.stateMachinePut(sm, next)).join();
            return Instant.ofEpochMilli(now);
        }
    }

    /**
     * Deletes a state machine. As in AWS, one with running executions turns {@code DELETING}: each of
     * them fails with {@code States.Runtime} at its next state transition, and the machine goes once
     * none runs. Deleting an unknown machine succeeds, as it does in AWS.
     */
    public void deleteStateMachine(String stateMachineArn) {
        String name = arns.stateMachineName(stateMachineArn);
        synchronized (machines) {
            StateMachine sm = machines.get(name);
            if (sm == null || sm.deleting) {
                return;
            }
            sm.deleting = true;
            journal.append(JournalRecords.stateMachineDelete(sm)).join();
            removeIfDeleted(sm);
        }
    }

    // ---------------------------------------------------------------- executions

    /**
     * Starts an execution. The future completes once its start is durable and its run launched. The
     * same name and input as a running execution answer that execution (AWS's idempotency rule);
     * the same name otherwise is {@code ExecutionAlreadyExists}.
     *
     * @param name {@code null} for a random UUID
     * @param input {@code null} for {@code {}}
     */
    public CompletableFuture<StartedExecution> startExecution(String stateMachineArn, String name, String input) {
        startExecutionCalls.increment();
        StateMachine sm = machine(stateMachineArn);
        String executionName = name == null ? UUID.randomUUID().toString() : name;
        Names.validate("name", executionName);
        byte[] inputBytes = validatePayload(input == null ? "{}" : input);
        Execution created;
        CompletableFuture<Void> durable;
        synchronized (sm) {
            if (sm.deleting) {
                throw new StepFunctionsException(ErrorCode.STATE_MACHINE_DELETING,
                        "State machine '" + sm.arn + "' is being deleted");
            }
            Execution existing = sm.executionsByName.get(executionName);
            if (existing != null) {
                synchronized (existing) {
                    if (existing.status == ExecutionStatus.RUNNING && Arrays.equals(existing.input, inputBytes)) {
                        return CompletableFuture.completedFuture(new StartedExecution(arn(existing),
                                Instant.ofEpochMilli(existing.startMillis)));
                    }
                }
                throw new StepFunctionsException(ErrorCode.EXECUTION_ALREADY_EXISTS, "Execution Already Exists: '"
                        + arn(existing) + "' (" + (existing.status == ExecutionStatus.RUNNING
                        ? "running with a different input" : "closed with status " + existing.status)
                        + "); execution names are unique per state machine");
            }
            int open = openExecutions.incrementAndGet();
            if (open > maxOpenExecutions) {
                openExecutions.decrementAndGet();
                throw new StepFunctionsException(ErrorCode.EXECUTION_LIMIT_EXCEEDED, "Execution Limit Exceeded: "
                        + maxOpenExecutions + " executions are open; wait for some to close or stop them");
            }
            peakOpenExecutions.accumulateAndGet(open, Math::max);
            created = new Execution(sm, sm.current, executionName, clock.millis(), inputBytes);
            synchronized (created) {
                durable = journal.append(JournalRecords.executionStarted(created));
                ObjectNode details = JsonNodeFactory.instance.objectNode();
                details.put("input", new String(inputBytes, StandardCharsets.UTF_8));
                details.put("roleArn", created.definition.roleArn());
                appendEvent(created, "ExecutionStarted", details, created.startMillis);
            }
            sm.add(created);
            sm.running.incrementAndGet();
        }
        trackDeadline(created);
        if (!listeners.isEmpty()) {
            ExecutionDescription description = describe(created);
            listeners.forEach(listener -> tell(listener, description, true));
        }
        StartedExecution started = new StartedExecution(arn(created), Instant.ofEpochMilli(created.startMillis));
        return durable.handleAsync((ok, failure) -> {
            if (failure != null) {
                close(created, ExecutionStatus.FAILED, null, "States.Runtime",
                        "The execution's start could not be persisted: " + failure.getMessage(),
                        "ExecutionFailed", true);
                throw new StepFunctionsException(ErrorCode.INTERNAL,
                        "Could not persist the execution start: " + failure.getMessage());
            }
            launch(created, null);
            return started;
        }, launcher);
    }

    /**
     * Stops a running execution: {@code ABORTED}, an {@code ExecutionAborted} event, its run withdrawn.
     * Stopping a closed execution changes nothing and answers its stop date.
     */
    public CompletableFuture<Instant> stopExecution(String executionArn, String error, String cause) {
        if (error != null && error.length() > 256) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value at 'error'"
                    + " failed to satisfy constraint: Member must have length less than or equal to 256");
        }
        if (cause != null && cause.length() > 32_768) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value at 'cause'"
                    + " failed to satisfy constraint: Member must have length less than or equal to 32768");
        }
        Execution e = execution(executionArn);
        Closing closing = close(e, ExecutionStatus.ABORTED, null, error, cause, "ExecutionAborted", false);
        if (closing == null) {
            synchronized (e) {
                return CompletableFuture.completedFuture(Instant.ofEpochMilli(e.stopMillis));
            }
        }
        if (closing.run() != null) {
            closing.run().stop();
        }
        Instant stopped = Instant.ofEpochMilli(closing.stopMillis());
        return closing.durable().thenApply(ok -> stopped);
    }

    public ExecutionDescription describeExecution(String executionArn) {
        return describe(execution(executionArn));
    }

    private ExecutionDescription describe(Execution e) {
        synchronized (e) {
            return new ExecutionDescription(arn(e), e.stateMachine.arn, e.name, e.status,
                    Instant.ofEpochMilli(e.startMillis), e.status.isClosed() ? Instant.ofEpochMilli(e.stopMillis) : null,
                    utf8(e.input), e.output == null ? null : utf8(e.output), e.error, e.cause);
        }
    }

    /** Newest first, optionally only one status. */
    public Page<ExecutionSummary> listExecutions(String stateMachineArn, ExecutionStatus statusFilter, int maxResults,
            String nextToken) {
        StateMachine sm = machine(stateMachineArn);
        Map<Execution, Execution> view = sm.newestFirst;
        if (nextToken != null) {
            String key = decodeToken(nextToken, "e");
            int colon = key.indexOf(':');
            try {
                view = sm.newestFirst.tailMap(Execution.probe(Long.parseLong(key.substring(0, colon)),
                        key.substring(colon + 1)), false);
            } catch (RuntimeException ex) {
                throw invalidToken(nextToken);
            }
        }
        List<ExecutionSummary> items = new ArrayList<>();
        Execution last = null;
        String next = null;
        for (Execution e : view.keySet()) {
            ExecutionSummary summary;
            synchronized (e) {
                if (statusFilter != null && e.status != statusFilter) {
                    continue;
                }
                summary = new ExecutionSummary(arn(e), sm.arn, e.name, e.status, Instant.ofEpochMilli(e.startMillis),
                        e.status.isClosed() ? Instant.ofEpochMilli(e.stopMillis) : null);
            }
            if (items.size() == maxResults) {
                next = encodeToken("e", last.startMillis + ":" + last.name);
                break;
            }
            items.add(summary);
            last = e;
        }
        return new Page<>(items, next);
    }

    /** Oldest first unless {@code reverseOrder}. */
    public Page<HistoryEvent> getExecutionHistory(String executionArn, int maxResults, String nextToken,
            boolean reverseOrder) {
        Execution e = execution(executionArn);
        byte[] history;
        int length;
        synchronized (e) {
            history = e.history;
            length = e.historyLength;
        }
        List<HistoryEvent> events = HistoryCodec.decodeAll(history, length, e.input);
        if (reverseOrder) {
            Collections.reverse(events);
        }
        int from = 0;
        if (nextToken != null) {
            try {
                from = Integer.parseInt(decodeToken(nextToken, "h"));
            } catch (NumberFormatException ex) {
                throw invalidToken(nextToken);
            }
            if (from < 0 || from > events.size()) {
                throw invalidToken(nextToken);
            }
        }
        int to = Math.min(events.size(), from + maxResults);
        return new Page<>(List.copyOf(events.subList(from, to)),
                to < events.size() ? encodeToken("h", Integer.toString(to)) : null);
    }

    // ---------------------------------------------------------------- callbacks from runs

    void recordEvent(Execution e, String type, ObjectNode details, Instant timestamp) {
        if (type.startsWith("Execution")) {
            // Execution-level events are the engine's: it writes them when it opens and closes executions.
            return;
        }
        if (e.stateMachine.deleting) {
            fail(e, "States.Runtime", "State machine " + e.stateMachine.name + " has been deleted.");
            return;
        }
        boolean full;
        synchronized (e) {
            if (e.status != ExecutionStatus.RUNNING) {
                return;
            }
            appendEvent(e, type, details, timestamp.toEpochMilli());
            full = e.eventCount >= MAX_HISTORY_EVENTS - 1;
        }
        if (full) {
            fail(e, "States.Runtime", "The execution reached the maximum number of history events ("
                    + MAX_HISTORY_EVENTS + ").");
        }
    }

    void recordCheckpoint(Execution e, Checkpoint checkpoint) {
        synchronized (e) {
            if (e.status != ExecutionStatus.RUNNING) {
                return;
            }
            byte[] stateInput = checkpoint.stateInput() == null ? null
                    : checkpoint.stateInput().toString().getBytes(StandardCharsets.UTF_8);
            e.checkpointState = checkpoint.stateName();
            e.checkpointInput = stateInput == null || Arrays.equals(stateInput, e.input) ? null : stateInput;
            e.checkpointEnteredMillis = checkpoint.enteredAt().toEpochMilli();
            e.checkpointWakeMillis = checkpoint.wakeAt() == null ? -1 : checkpoint.wakeAt().toEpochMilli();
            journal.append(JournalRecords.checkpoint(e));
        }
        if (checkpoint.wakeAt() != null) {
            launcher.execute(() -> park(e));
        }
    }

    /**
     * Parks an execution waiting in a long Wait: its run is withdrawn (releasing the interpreter's
     * per-run state and JSON trees) and one timer entry resumes it from its checkpoint at the
     * recorded wake-up instant. This is what lets a million idle executions fit in a small heap; the
     * resumed Wait ends at once since its instant has come, exactly as after a restart.
     */
    private void park(Execution e) {
        ExecutionRun run;
        synchronized (e) {
            long wake = e.checkpointWakeMillis;
            if (e.status != ExecutionStatus.RUNNING || e.run == null || e.parked != null || wake < 0
                    || wake - clock.millis() < PARK_AFTER_MILLIS) {
                return;
            }
            run = e.run;
            e.run = null;
            e.parked = timer.schedule(Instant.ofEpochMilli(wake), () -> unpark(e, wake));
        }
        run.stop();
    }

    private void unpark(Execution e, long wake) {
        Checkpoint checkpoint;
        synchronized (e) {
            if (e.status != ExecutionStatus.RUNNING || e.parked == null || e.checkpointWakeMillis != wake) {
                return;
            }
            e.parked = null;
            checkpoint = checkpointOf(e);
        }
        launch(e, checkpoint);
    }

    private Checkpoint checkpointOf(Execution e) {
        try {
            return new Checkpoint(e.checkpointState,
                    MAPPER.readTree(e.checkpointInput == null ? e.input : e.checkpointInput),
                    Instant.ofEpochMilli(e.checkpointEnteredMillis),
                    e.checkpointWakeMillis < 0 ? null : Instant.ofEpochMilli(e.checkpointWakeMillis));
        } catch (java.io.IOException ex) {
            throw new IllegalStateException("Corrupt checkpoint of execution " + arn(e), ex);
        }
    }

    void recordCompletion(Execution e, ExecutionOutcome outcome) {
        switch (outcome.status()) {
            case SUCCEEDED -> {
                String output = outcome.output() == null ? "null" : outcome.output().toString();
                byte[] bytes = output.getBytes(StandardCharsets.UTF_8);
                if (bytes.length > MAX_PAYLOAD_BYTES) {
                    close(e, ExecutionStatus.FAILED, null, "States.DataLimitExceeded", "The execution output has "
                            + bytes.length + " bytes, more than the limit of " + MAX_PAYLOAD_BYTES,
                            "ExecutionFailed", false);
                } else {
                    close(e, ExecutionStatus.SUCCEEDED, bytes, null, null, "ExecutionSucceeded", false);
                }
            }
            case FAILED -> close(e, ExecutionStatus.FAILED, null, outcome.error(), outcome.cause(),
                    "ExecutionFailed", false);
            case TIMED_OUT -> close(e, ExecutionStatus.TIMED_OUT, null, outcome.error(), outcome.cause(),
                    "ExecutionTimedOut", false);
        }
    }

    // ---------------------------------------------------------------- internals

    private record Closing(ExecutionRun run, long stopMillis, CompletableFuture<Void> durable) {
    }

    private void fail(Execution e, String error, String cause) {
        Closing closing = close(e, ExecutionStatus.FAILED, null, error, cause, "ExecutionFailed", false);
        if (closing != null && closing.run() != null) {
            closing.run().stop();
        }
    }

    /** Closes a running execution once; {@code null} if it was already closed. */
    private Closing close(Execution e, ExecutionStatus status, byte[] output, String error, String cause,
            String eventType, boolean force) {
        Closing closing;
        synchronized (e) {
            if (e.status != ExecutionStatus.RUNNING && !force) {
                return null;
            }
            long now = clock.millis();
            ObjectNode details = JsonNodeFactory.instance.objectNode();
            if (output != null) {
                details.put("output", utf8(output));
            }
            if (error != null) {
                details.put("error", error);
            }
            if (cause != null) {
                details.put("cause", cause);
            }
            appendEvent(e, eventType, details, now);
            e.status = status;
            e.stopMillis = now;
            e.output = output;
            e.error = error;
            e.cause = cause;
            e.checkpointState = null;
            e.checkpointInput = null;
            e.trimHistory();
            if (e.parked != null) {
                e.parked.cancel();
                e.parked = null;
            }
            closing = new Closing(e.run, now, journal.append(JournalRecords.completed(e)));
            e.run = null;
        }
        afterClose(e);
        return closing;
    }

    private void afterClose(Execution e) {
        if (!listeners.isEmpty()) {
            ExecutionDescription description = describe(e);
            listeners.forEach(listener -> tell(listener, description, false));
        }
        openExecutions.decrementAndGet();
        StateMachine sm = e.stateMachine;
        sm.running.decrementAndGet();
        retainClosed(e);
        if (sm.deleting) {
            synchronized (machines) {
                removeIfDeleted(sm);
            }
        }
    }

    /** A listener's failure is its own: it must never break starting or closing an execution. */
    private static void tell(ExecutionListener listener, ExecutionDescription description, boolean started) {
        try {
            if (started) {
                listener.started(description);
            } else {
                listener.closed(description);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "An execution listener failed on " + description.name() + ": " + e);
        }
    }

    private void removeIfDeleted(StateMachine sm) {
        if (sm.deleting && sm.running.get() == 0) {
            machines.remove(sm.name, sm);
        }
    }

    private void retainClosed(Execution e) {
        closedOrder.add(e);
        if (closedCount.incrementAndGet() > closedRetention) {
            Execution oldest = closedOrder.poll();
            if (oldest != null) {
                closedCount.decrementAndGet();
                oldest.stateMachine.forget(oldest);
            }
        }
    }

    private void appendEvent(Execution e, String type, ObjectNode details, long timestampMillis) {
        if (type.endsWith("Scheduled") || (type.endsWith("StateEntered") && !type.equals("TaskStateEntered"))) {
            billedTransitions.increment();
        }
        byte[] encoded = HistoryCodec.encode(type, timestampMillis, details, e.input);
        e.appendHistory(encoded);
        journal.append(JournalRecords.event(e, e.eventCount, encoded));
    }

    private void launch(Execution e, Checkpoint checkpoint) {
        Definition definition = e.definition;
        ExecutionContext context = new ExecutionContext(arn(e), e.name, Instant.ofEpochMilli(e.startMillis),
                definition.roleArn(), e.stateMachine.arn, e.stateMachine.name);
        ExecutionRun run;
        try {
            run = checkpoint == null
                    ? interpreter.start(definition.parsed(), context, MAPPER.readTree(e.input), e)
                    : interpreter.resume(definition.parsed(), context, checkpoint, e);
        } catch (java.io.IOException | RuntimeException ex) {
            LOG.log(System.Logger.Level.WARNING, "Execution " + e.name + " of " + e.stateMachine.name
                    + " could not be run: " + ex);
            fail(e, "States.Runtime", "The interpreter could not run the execution: " + ex.getMessage());
            return;
        }
        boolean stale;
        synchronized (e) {
            stale = e.status != ExecutionStatus.RUNNING;
            if (!stale) {
                e.run = run;
            }
        }
        if (stale) {
            run.stop();
        } else {
            park(e);
        }
    }

    /** One timer entry for all one-year deadlines: executions queue in start order. */
    private void trackDeadline(Execution e) {
        synchronized (byStart) {
            byStart.addLast(e);
            if (byStart.size() > 2 * openExecutions.get() + 4096) {
                byStart.removeIf(x -> x.status.isClosed());
            }
            if (deadlineSweep == null) {
                scheduleSweep();
            }
        }
    }

    private void scheduleSweep() {
        Execution head = byStart.peekFirst();
        if (head != null) {
            deadlineSweep = timer.schedule(Instant.ofEpochMilli(head.startMillis).plus(MAX_EXECUTION_DURATION),
                    this::sweepDeadlines);
        }
    }

    private void sweepDeadlines() {
        long now = clock.millis();
        long limit = MAX_EXECUTION_DURATION.toMillis();
        List<Execution> due = new ArrayList<>();
        synchronized (byStart) {
            deadlineSweep = null;
            while (!byStart.isEmpty() && byStart.peekFirst().startMillis + limit <= now) {
                due.add(byStart.pollFirst());
            }
            scheduleSweep();
        }
        for (Execution e : due) {
            Closing closing = close(e, ExecutionStatus.TIMED_OUT, null, "States.Timeout", null,
                    "ExecutionTimedOut", false);
            if (closing != null && closing.run() != null) {
                closing.run().stop();
            }
        }
    }

    private StateMachine machine(String stateMachineArn) {
        String name = arns.stateMachineName(stateMachineArn);
        StateMachine sm = machines.get(name);
        if (sm == null) {
            throw new StepFunctionsException(ErrorCode.STATE_MACHINE_DOES_NOT_EXIST,
                    "State Machine Does Not Exist: '" + stateMachineArn + "'");
        }
        return sm;
    }

    private Execution execution(String executionArn) {
        String[] names = arns.executionNames(executionArn);
        StateMachine sm = machines.get(names[0]);
        Execution e = sm == null ? null : sm.executionsByName.get(names[1]);
        if (e == null) {
            throw new StepFunctionsException(ErrorCode.EXECUTION_DOES_NOT_EXIST,
                    "Execution Does Not Exist: '" + executionArn + "'");
        }
        return e;
    }

    private String arn(Execution e) {
        return arns.execution(e.stateMachine.name, e.name);
    }

    private StateMachineDescription describe(StateMachine sm) {
        Definition d = sm.current;
        return new StateMachineDescription(sm.arn, sm.name, sm.deleting ? "DELETING" : "ACTIVE", d.parsed().json(),
                d.roleArn(), STANDARD, Instant.ofEpochMilli(sm.creationMillis), Instant.ofEpochMilli(d.updateMillis()));
    }

    private ParsedDefinition parse(String definitionJson) {
        try {
            return interpreter.parse(definitionJson);
        } catch (InvalidDefinitionException e) {
            throw new StepFunctionsException(ErrorCode.INVALID_DEFINITION, "Invalid State Machine Definition: '"
                    + e.getMessage() + "'");
        }
    }

    private static void validateType(String type) {
        if (type != null && !STANDARD.equals(type)) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "Only STANDARD state machines are supported by"
                    + " the local Step Functions engine (type was " + type + "); omit type or use STANDARD");
        }
    }

    private static byte[] validatePayload(String input) {
        byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_PAYLOAD_BYTES) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value at 'input'"
                    + " failed to satisfy constraint: Member must have length less than or equal to "
                    + MAX_PAYLOAD_BYTES + " (it has " + bytes.length + " bytes)");
        }
        try {
            MAPPER.readTree(bytes);
        } catch (java.io.IOException e) {
            String detail = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
            throw new StepFunctionsException(ErrorCode.INVALID_EXECUTION_INPUT,
                    "Invalid State Machine Execution Input: '" + detail + "'");
        }
        return bytes;
    }

    private static String encodeToken(String kind, String value) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((kind + "1:" + value).getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeToken(String token, String kind) {
        try {
            String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            if (decoded.startsWith(kind + "1:")) {
                return decoded.substring(kind.length() + 2);
            }
        } catch (IllegalArgumentException e) {
            throw invalidToken(token);
        }
        throw invalidToken(token);
    }

    private static StepFunctionsException invalidToken(String token) {
        return new StepFunctionsException(ErrorCode.INVALID_TOKEN, "Invalid Token: '" + token
                + "' is not a nextToken this listing returned");
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- durability

    @Override
    public void writeSnapshot(Consumer<byte[]> sink) {
        for (StateMachine sm : List.copyOf(machines.values())) {
            List<Definition> revisions = new ArrayList<>(sm.revisions.values());
            revisions.sort(Comparator.comparingInt(Definition::revision));
            for (Definition d : revisions) {
                sink.accept(JournalRecords.stateMachinePut(sm, d));
            }
            for (Execution e : sm.executionsByName.values()) {
                byte[][] records;
                synchronized (e) {
                    records = new byte[][] {
                        JournalRecords.executionStarted(e),
                        JournalRecords.history(e),
                        e.status.isClosed() ? JournalRecords.completed(e)
                                : e.checkpointState == null ? null : JournalRecords.checkpoint(e)};
                }
                for (byte[] r : records) {
                    if (r != null) {
                        sink.accept(r);
                    }
                }
            }
            if (sm.deleting) {
                sink.accept(JournalRecords.stateMachineDelete(sm));
            }
        }
    }

    /** Applies one journal or snapshot record while recovering; records already applied are skipped. */
    void replay(byte[] record) {
        BinaryReader in = new BinaryReader(record);
        int type = in.readByte();
        switch (type) {
            case JournalRecords.STATE_MACHINE_PUT -> replayStateMachinePut(in);
            case JournalRecords.STATE_MACHINE_DELETE -> {
                String name = in.readString();
                long creation = in.readLong();
                StateMachine sm = machines.get(name);
                if (sm != null && sm.creationMillis == creation) {
                    sm.deleting = true;
                    removeIfDeleted(sm);
                }
            }
            case JournalRecords.EXECUTION_STARTED -> {
                StateMachine sm = machines.get(in.readString());
                String name = in.readString();
                int revision = in.readVarInt();
                long start = in.readLong();
                byte[] input = in.readBytes();
                Definition definition = sm == null ? null : sm.revisions.get(revision);
                if (definition != null && !sm.executionsByName.containsKey(name)) {
                    Execution e = new Execution(sm, definition, name, start, input);
                    sm.add(e);
                    sm.running.incrementAndGet();
                    openExecutions.incrementAndGet();
                }
            }
            case JournalRecords.EVENT -> {
                Execution e = replayTarget(in);
                int id = in.readVarInt();
                byte[] event = in.readBytes();
                if (e != null && id == e.eventCount + 1) {
                    e.appendHistory(event);
                }
            }
            case JournalRecords.HISTORY -> {
                Execution e = replayTarget(in);
                int count = in.readVarInt();
                byte[] history = in.readBytes();
                if (e != null && count > e.eventCount) {
                    e.history = history;
                    e.historyLength = history.length;
                    e.eventCount = count;
                }
            }
            case JournalRecords.CHECKPOINT -> {
                Execution e = replayTarget(in);
                String state = in.readString();
                byte[] stateInput = in.readNullableBytes();
                long entered = in.readLong();
                long wake = in.readLong();
                if (e != null && e.status == ExecutionStatus.RUNNING) {
                    e.checkpointState = state;
                    e.checkpointInput = stateInput;
                    e.checkpointEnteredMillis = entered;
                    e.checkpointWakeMillis = wake;
                }
            }
            case JournalRecords.COMPLETED -> {
                Execution e = replayTarget(in);
                ExecutionStatus status = ExecutionStatus.values()[in.readByte()];
                long stop = in.readLong();
                byte[] output = in.readNullableBytes();
                String error = in.readNullableString();
                String cause = in.readNullableString();
                if (e != null && e.status == ExecutionStatus.RUNNING) {
                    e.status = status;
                    e.stopMillis = stop;
                    e.output = output;
                    e.error = error;
                    e.cause = cause;
                    e.checkpointState = null;
                    e.checkpointInput = null;
                    e.trimHistory();
                    afterClose(e);
                }
            }
            default -> throw new IllegalStateException("Unknown journal record type " + type);
        }
    }

    private void replayStateMachinePut(BinaryReader in) {
        String name = in.readString();
        long creation = in.readLong();
        int revision = in.readVarInt();
        String definitionJson = in.readString();
        String roleArn = in.readString();
        long update = in.readLong();
        StateMachine sm = machines.get(name);
        if (sm != null && sm.creationMillis > creation) {
            return;
        }
        if (sm != null && sm.revisions.containsKey(revision) && sm.creationMillis == creation) {
            return;
        }
        Definition definition = new Definition(revision, parse(definitionJson), roleArn, update);
        if (sm == null || sm.creationMillis < creation) {
            machines.put(name, new StateMachine(this, name, arns.stateMachine(name), creation, definition));
            lastCreationMillis.accumulateAndGet(creation, Math::max);
        } else {
            sm.addRevision(definition);
        }
    }

    private Execution replayTarget(BinaryReader in) {
        StateMachine sm = machines.get(in.readString());
        String name = in.readString();
        return sm == null ? null : sm.executionsByName.get(name);
    }

    /** After replay: re-arms deadlines and resumes every running execution from its last checkpoint. */
    int resumeRecovered() {
        List<Execution> running = new ArrayList<>();
        for (StateMachine sm : machines.values()) {
            for (Execution e : sm.executionsByName.values()) {
                if (e.status == ExecutionStatus.RUNNING) {
                    running.add(e);
                }
            }
        }
        running.sort(Comparator.comparingLong(e -> e.startMillis));
        for (Execution e : running) {
            trackDeadline(e);
        }
        for (Execution e : running) {
            Checkpoint checkpoint;
            synchronized (e) {
                checkpoint = e.checkpointState == null ? null : checkpointOf(e);
            }
            launch(e, checkpoint);
        }
        return running.size();
    }

    @Override
    public void close() {
        List<ExecutionRun> runs = new ArrayList<>();
        for (StateMachine sm : machines.values()) {
            for (Iterator<Execution> it = sm.executionsByName.values().iterator(); it.hasNext(); ) {
                Execution e = it.next();
                synchronized (e) {
                    if (e.run != null) {
                        runs.add(e.run);
                    }
                    if (e.parked != null) {
                        e.parked.cancel();
                        e.parked = null;
                    }
                }
            }
        }
        // Runs are withdrawn, not aborted: a durable engine resumes them on its next start.
        runs.forEach(ExecutionRun::stop);
        synchronized (byStart) {
            if (deadlineSweep != null) {
                deadlineSweep.cancel();
            }
        }
        launcher.shutdown();
        journal.close();
    }
}
