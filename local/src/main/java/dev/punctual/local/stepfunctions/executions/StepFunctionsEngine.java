package dev.punctual.local.stepfunctions.executions;

import dev.punctual.local.retention.Retention;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.quotas.Quota;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The local Step Functions backend as one object: the public face of the API operations, which
 * {@link StateMachineOperations} and {@link ExecutionOperations} carry out with AWS's rules (Express
 * executions {@link ExpressExecutions}'), and the
 * engine's lifecycle: the parts it is built from, the journal and what recovery found in it
 * ({@link Durability}), the listeners and counters, and shutdown. Each execution runs its own
 * lifecycle ({@link Execution}); the one-year limit is {@link Deadlines}'.
 *
 * <p>Build it with {@link #builder()}; closing it withdraws every run (they resume on the next start
 * when durable) and closes the journal.
 */
public final class StepFunctionsEngine implements AutoCloseable {

    /** A Standard execution runs at most one year, then times out with {@code States.Timeout}. */
    public static final Duration MAX_EXECUTION_DURATION = Deadlines.MAX_EXECUTION_DURATION;
    /** The largest execution history. */
    public static final int MAX_HISTORY_EVENTS = RecordedExecution.MAX_HISTORY_EVENTS;
    /** AWS's quota of open executions per account and Region. */
    public static final int DEFAULT_MAX_OPEN_EXECUTIONS =
            (int) Quota.OPEN_EXECUTIONS.largestRegions();

    private final Registry registry;
    private final ExecutionHost host;
    private final Deadlines deadlines;
    private final Durability durability;
    private final StateMachineOperations stateMachines;
    private final ExpressExecutions express;
    private final ExecutionOperations executions;
    private volatile Recovery recovery = Recovery.NONE;
    /** What resumes the executions a data directory held, until it has run. */
    private final AtomicReference<Supplier<Recovery>> pendingRecovery = new AtomicReference<>();

    /** As {@link EngineBuilder#mockConfiguration}. */
    void useMockConfiguration(dev.punctual.local.stepfunctions.mocking.MockConfiguration configuration) {
        host.useMockConfiguration(configuration);
    }

    StepFunctionsEngine(Interpreter interpreter, Timer timer, String partition, String region, String accountId,
            int maxOpenExecutions, Retention closedRetention, int launcherThreads, InFlight work) {
        this.registry = new Registry(maxOpenExecutions, new ClosedExecutions(timer, closedRetention));
        this.host = new ExecutionHost(interpreter, timer, new EndpointArns(partition, region, accountId), registry,
                launcherThreads, work);
        this.deadlines = new Deadlines(timer, registry::openExecutions);
        this.durability = new Durability(host, registry, deadlines);
        this.stateMachines = new StateMachineOperations(registry, host);
        this.express = new ExpressExecutions(host);
        this.executions = new ExecutionOperations(registry, host, deadlines, stateMachines, express);
    }

    /** A builder of an engine; interpreter and timer are required. */
    public static EngineBuilder builder() {
        return new EngineBuilder();
    }

    /**
     * What the start found in the data directory and resumed; {@link Recovery#NONE} without one, or while
     * its executions wait for {@link #resumeRecovered()}.
     */
    public Recovery recovery() {
        return recovery;
    }

    void recoverLater(Supplier<Recovery> resume) {
        pendingRecovery.set(resume);
    }

    /**
     * Runs on the executions replayed from the data directory, each from its last checkpoint, if
     * {@link EngineBuilder#resumeRecoveredLater} left them waiting; once. Returns what the start recovered.
     */
    public Recovery resumeRecovered() {
        Supplier<Recovery> resume = pendingRecovery.getAndSet(null);
        if (resume != null) {
            recovery = resume.get();
        }
        return recovery;
    }

    /** Where the journal goes, and how recovery reads it back. */
    Durability durability() {
        return durability;
    }

    void useJournal(Journal journal) {
        host.useJournal(journal);
    }

    /** The ARN a state machine of this name has here. */
    public String stateMachineArn(String name) {
        return host.arns.stateMachine(name);
    }

    /** Tells {@code listener} of every execution started or closed from now on. */
    public void addListener(ExecutionListener listener) {
        host.addListener(listener);
    }

    /** Stops telling {@code listener}. */
    public void removeListener(ExecutionListener listener) {
        host.removeListener(listener);
    }

    /** Running executions, all state machines together. */
    public int openExecutions() {
        return registry.openExecutions();
    }

    /** Closed Standard executions kept now, within {@code --retain closed-executions}. */
    public int closedExecutionsKept() {
        return registry.closedExecutions().size();
    }

    /** Closed Standard executions forgotten since the engine started, by count or by age. */
    public long closedExecutionsForgotten() {
        return registry.closedExecutions().forgotten();
    }

    /** The most executions open at once since the last {@link #resetPeakOpenExecutions()}. */
    public int peakOpenExecutions() {
        return registry.peakOpenExecutions();
    }

    /** Starts measuring the peak of open executions again from the current count. */
    public void resetPeakOpenExecutions() {
        registry.resetPeakOpenExecutions();
    }

    /**
     * State transitions as AWS bills them: every state entered, and every retry of a Task (each
     * attempt is scheduled anew). Counted since the engine started; replayed history is not billed again.
     */
    public long billedTransitions() {
        return host.billedTransitions.sum();
    }

    /** StartExecution calls received, accepted or not. */
    public long startExecutionCalls() {
        return executions.startExecutionCalls();
    }

    /** Express executions started since the engine started: what AWS bills as Express requests. */
    public long expressRequests() {
        return express.requests();
    }

    /** GB-seconds of the Express executions closed since the engine started, as AWS bills their duration. */
    public double expressGbSeconds() {
        return express.gbSeconds();
    }

    /** Billed duration (100 ms steps) of the Express executions closed since the engine started. */
    public Duration expressBilledDuration() {
        return Duration.ofMillis(express.billedMillis());
    }

    /** The log executions of state machines that log write to: what CloudWatch Logs would ingest. */
    public ExecutionLog executionLog() {
        return host.executionLog;
    }

    /**
     * A running Express execution, as the console shows it: no API describes one.
     *
     * @param state the state it last entered
     * @param stateInput that state's input (JSON text)
     */
    public record RunningExpress(String executionArn, String stateMachineArn, String name, Instant startDate,
            String state, String stateInput) {

        @Override
        public String toString() {
            return name + " in " + state;
        }
    }

    /** The running Express executions, oldest first. */
    public List<RunningExpress> runningExpressExecutions() {
        return express.running().stream().map(e -> new RunningExpress(e.arn, e.stateMachine.arn, e.name,
                Instant.ofEpochMilli(e.startMillis), e.currentState(), e.currentInput())).toList();
    }


    // ---------------------------------------------------------------- state machines

    /** CreateStateMachine of {@code type} ({@code null}: Standard) that logs nothing. */
    public StateMachineDescription createStateMachine(String name, String definitionJson, String roleArn, String type) {
        return createStateMachine(name, definitionJson, roleArn, type, ExecutionLogging.OFF);
    }

    /**
     * CreateStateMachine; the same name, definition, role, type and logging again answers the existing
     * machine, as in AWS.
     */
    public StateMachineDescription createStateMachine(String name, String definitionJson, String roleArn, String type,
            ExecutionLogging logging) {
        return stateMachines.createStateMachine(name, definitionJson, roleArn, type, logging);
    }

    public StateMachineDescription describeStateMachine(String stateMachineArn) {
        return stateMachines.describeStateMachine(stateMachineArn);
    }

    public Page<StateMachineDescription> listStateMachines(int maxResults, String nextToken) {
        return stateMachines.listStateMachines(maxResults, nextToken);
    }

    /** Updates the definition and/or role; running executions finish on the revision they started with. */
    public Instant updateStateMachine(String stateMachineArn, String definitionJson, String roleArn) {
        return stateMachines.updateStateMachine(stateMachineArn, definitionJson, roleArn);
    }

    /**
     * Deletes a state machine. As in AWS, one with running executions turns {@code DELETING}: each of
     * them fails with {@code States.Runtime} at its next state transition, and the machine goes once
     * none runs. Deleting an unknown machine succeeds, as it does in AWS.
     */
    public void deleteStateMachine(String stateMachineArn) {
        stateMachines.deleteStateMachine(stateMachineArn);
    }

    // ---------------------------------------------------------------- executions

    /**
     * Starts an execution. The future completes once its start is durable and its run launched. A
     * name already used answers as AWS's idempotency rule says: the original execution if it is open
     * with the same input, {@code ExecutionAlreadyExists} otherwise.
     *
     * @param name {@code null} for a random UUID
     * @param input {@code null} for {@code {}}
     */
    public CompletableFuture<StartedExecution> startExecution(String stateMachineArn, String name, String input) {
        return executions.startExecution(stateMachineArn, name, input);
    }

    /**
     * Starts an execution and completes with its description once it has closed: the {@code .sync}
     * integration. An Express child runs as any Express execution does; a Standard child is named, so
     * a parent that runs the same Task again (a retry, or a resume after a restart) finds it still
     * running and waits for it, as AWS's idempotency rule gives.
     *
     * @param started told StartExecution's answer once the child has started, before it closes
     */
    public CompletableFuture<ExecutionDescription> startExecutionAndWait(String stateMachineArn, String name,
            String input, Consumer<StartedExecution> started) {
        return executions.startExecutionAndWait(stateMachineArn, name, input, started);
    }

    /**
     * Starts an execution of an Express state machine and completes once it has closed, with its description
     * and billing: StartSyncExecution. A Standard machine is refused ({@code StateMachineTypeNotSupported}).
     *
     * @param name {@code null} for a random UUID
     * @param input {@code null} for {@code {}}
     */
    public CompletableFuture<SyncExecutionResult> startSyncExecution(String stateMachineArn, String name,
            String input) {
        return executions.startSyncExecution(stateMachineArn, name, input);
    }

    /**
     * Stops a running execution: {@code ABORTED}, an {@code ExecutionAborted} event, its run withdrawn.
     * Stopping a closed execution changes nothing and answers its stop date.
     */
    public CompletableFuture<Instant> stopExecution(String executionArn, String error, String cause) {
        return executions.stopExecution(executionArn, error, cause);
    }

    public ExecutionDescription describeExecution(String executionArn) {
        return executions.describeExecution(executionArn);
    }

    /** Newest first, optionally only one status. */
    public Page<ExecutionSummary> listExecutions(String stateMachineArn, ExecutionStatus statusFilter, int maxResults,
            String nextToken) {
        return executions.listExecutions(stateMachineArn, statusFilter, maxResults, nextToken);
    }

    /** Oldest first unless {@code reverseOrder}. */
    public Page<HistoryEvent> getExecutionHistory(String executionArn, int maxResults, String nextToken,
            boolean reverseOrder) {
        return executions.getExecutionHistory(executionArn, maxResults, nextToken, reverseOrder);
    }

    /** Withdraws every run (a durable engine resumes them on its next start) and closes the journal. */
    @Override
    public void close() {
        for (StateMachine sm : registry.all()) {
            sm.executionsByName.values().forEach(Execution::withdraw);
        }
        express.withdrawAll();
        deadlines.close();
        registry.closedExecutions().close();
        host.close();
    }
}
