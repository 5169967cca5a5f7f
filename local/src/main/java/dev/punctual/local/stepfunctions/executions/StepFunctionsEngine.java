package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.ParsedDefinition;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.quotas.Quota;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.StepFunctionsLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Step Functions API of the local backend: the state machine registry and the operations on it
 * and on Standard executions, with AWS's rules for names, idempotent StartExecution, StopExecution,
 * history and pagination. Each execution runs its own lifecycle ({@link Execution}); the one-year
 * limit is {@link Deadlines}'; the journal and recovery are {@link Durability}'s.
 *
 * <p>Build it with {@link #builder()}; closing it withdraws every run (they resume on the next start
 * when durable) and closes the journal.
 */
public final class StepFunctionsEngine implements AutoCloseable {

    /** A Standard execution runs at most one year, then times out with {@code States.Timeout}. */
    public static final Duration MAX_EXECUTION_DURATION = Deadlines.MAX_EXECUTION_DURATION;
    /** The largest execution history. */
    public static final int MAX_HISTORY_EVENTS = Execution.MAX_HISTORY_EVENTS;
    /** AWS's quota of open executions per account and Region. */
    public static final int DEFAULT_MAX_OPEN_EXECUTIONS =
            (int) Quota.OPEN_EXECUTIONS.largestRegions();

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private final Registry registry;
    private final ExecutionHost host;
    private final Deadlines deadlines;
    private final Durability durability;
    private final ExpressExecutions express;
    private final ChildCompletions children = new ChildCompletions();
    private final LongAdder startExecutionCalls = new LongAdder();
    private volatile Recovery recovery = Recovery.NONE;

    StepFunctionsEngine(Interpreter interpreter, Timer timer, String partition, String region, String accountId,
            int maxOpenExecutions, int closedRetention, int launcherThreads) {
        this.registry = new Registry(maxOpenExecutions, closedRetention);
        this.host = new ExecutionHost(interpreter, timer, new EndpointArns(partition, region, accountId), registry,
                launcherThreads);
        this.deadlines = new Deadlines(timer, registry::openExecutions);
        this.durability = new Durability(host, registry, deadlines);
        this.express = new ExpressExecutions(host);
    }

    /** A builder of an engine; interpreter and timer are required. */
    public static EngineBuilder builder() {
        return new EngineBuilder();
    }

    /** What the start found in the data directory; {@link Recovery#NONE} without one. */
    public Recovery recovery() {
        return recovery;
    }

    void recovered(Recovery recovered) {
        this.recovery = recovered;
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
        return startExecutionCalls.sum();
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
    public java.time.Duration expressBilledDuration() {
        return java.time.Duration.ofMillis(express.billedMillis());
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

    /** A state machine of {@code type} ({@code null}: Standard) that logs nothing. */
    public StateMachineDescription createStateMachine(String name, String definitionJson, String roleArn, String type) {
        return createStateMachine(name, definitionJson, roleArn, type, ExecutionLogging.OFF);
    }

    /**
     * Creates a state machine. An identical repeat (same definition, role, type and logging) answers the
     * existing one, as in AWS; anything else under a taken name is {@code StateMachineAlreadyExists}.
     */
    public StateMachineDescription createStateMachine(String name, String definitionJson, String roleArn, String type,
            ExecutionLogging logging) {
        Names.validate("name", name);
        WorkflowType workflowType = WorkflowType.of(type);
        EndpointArns.validateRoleArn(roleArn);
        ParsedDefinition parsed = host.parse(definitionJson);
        if (workflowType == WorkflowType.EXPRESS) {
            ExpressDefinitions.validate(definitionJson);
        }
        synchronized (registry) {
            StateMachine existing = registry.get(name);
            if (existing != null) {
                StateMachineRevision current = existing.current;
                if (!existing.deleting && current.parsed().json().equals(definitionJson)
                        && current.roleArn().equals(roleArn) && existing.type == workflowType
                        && existing.logging.equals(logging)) {
                    return describe(existing);
                }
                throw new StepFunctionsException(existing.deleting ? ErrorCode.STATE_MACHINE_DELETING
                        : ErrorCode.STATE_MACHINE_ALREADY_EXISTS, "State Machine Already Exists: '" + existing.arn
                        + "'" + (existing.deleting ? " (it is being deleted: its executions are still running)"
                        : " with a different definition or role; update it or pick another name"));
            }
            long creation = registry.nextCreationMillis(host.clock.millis());
            StateMachine sm = new StateMachine(host, name, host.arns.stateMachine(name), creation,
                    new StateMachineRevision(1, parsed, roleArn, creation), workflowType, logging);
            registry.put(sm);
            host.journal().append(JournalCodec.stateMachinePut(sm, sm.current)).join();
            return describe(sm);
        }
    }

    public StateMachineDescription describeStateMachine(String stateMachineArn) {
        return describe(machine(stateMachineArn));
    }

    public Page<StateMachineDescription> listStateMachines(int maxResults, String nextToken) {
        String after = nextToken == null ? null : PageToken.STATE_MACHINES.decode(nextToken);
        List<StateMachine> sorted = new ArrayList<>(registry.all());
        sorted.sort(Comparator.comparing(sm -> sm.name));
        List<StateMachineDescription> items = new ArrayList<>();
        String next = null;
        for (StateMachine sm : sorted) {
            if (after != null && sm.name.compareTo(after) <= 0) {
                continue;
            }
            if (items.size() == maxResults) {
                next = PageToken.STATE_MACHINES.encode(items.get(items.size() - 1).name());
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
            EndpointArns.validateRoleArn(roleArn);
        }
        ParsedDefinition parsed = definitionJson == null ? null : host.parse(definitionJson);
        synchronized (registry) {
            StateMachine sm = machine(stateMachineArn);
            if (sm.deleting) {
                throw deleting(sm);
            }
            if (parsed != null && sm.type == WorkflowType.EXPRESS) {
                ExpressDefinitions.validate(definitionJson);
            }
            StateMachineRevision current = sm.current;
            long now = host.clock.millis();
            StateMachineRevision next = new StateMachineRevision(current.revision() + 1,
                    parsed == null ? current.parsed() : parsed,
                    roleArn == null ? current.roleArn() : roleArn, now);
            sm.addRevision(next);
            host.journal().append(JournalCodec.stateMachinePut(sm, next)).join();
            return Instant.ofEpochMilli(now);
        }
    }

    /**
     * Deletes a state machine. As in AWS, one with running executions turns {@code DELETING}: each of
     * them fails with {@code States.Runtime} at its next state transition, and the machine goes once
     * none runs. Deleting an unknown machine succeeds, as it does in AWS.
     */
    public void deleteStateMachine(String stateMachineArn) {
        String name = host.arns.stateMachineName(stateMachineArn);
        synchronized (registry) {
            StateMachine sm = registry.get(name);
            if (sm == null || sm.deleting) {
                return;
            }
            sm.deleting = true;
            host.journal().append(JournalCodec.stateMachineDelete(sm)).join();
            registry.removeIfDeleted(sm);
        }
    }

    // ---------------------------------------------------------------- executions

    /**
     * Starts an execution. The future completes once its start is durable and its run launched. A
     * name already used answers as {@link #startAgain} says.
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
        if (sm.type == WorkflowType.EXPRESS) {
            ExpressExecution started = startExpress(sm, executionName, inputBytes);
            return CompletableFuture.completedFuture(new StartedExecution(started.arn,
                    Instant.ofEpochMilli(started.startMillis)));
        }
        Execution created;
        CompletableFuture<Void> durable;
        synchronized (sm) {
            if (sm.deleting) {
                throw deleting(sm);
            }
            Execution existing = sm.executionsByName.get(executionName);
            if (existing != null) {
                return CompletableFuture.completedFuture(startAgain(existing, inputBytes));
            }
            registry.open();
            created = new Execution(sm, sm.current, executionName, host.clock.millis(), inputBytes);
            durable = created.open();
            sm.add(created);
            sm.running.incrementAndGet();
        }
        deadlines.track(created);
        host.started(created);
        StartedExecution started = new StartedExecution(created.arn(), Instant.ofEpochMilli(created.startMillis));
        return durable.handleAsync((ok, failure) -> {
            if (failure != null) {
                created.close(ExecutionStatus.FAILED, null, StatesRuntimeError.NAME,
                        "The execution's start could not be persisted: " + failure.getMessage());
                throw new StepFunctionsException(ErrorCode.INTERNAL,
                        "Could not persist the execution start: " + failure.getMessage());
            }
            created.launch(null);
            return started;
        }, host.launcher);
    }

    /**
     * Starts an execution and completes with its description once it has closed: the {@code .sync}
     * integration. An Express child runs as any Express execution does; a Standard child is named, so
     * a parent that runs the same Task again (a retry, or a resume after a restart) finds it still
     * running and waits for it, as AWS's idempotency rule gives.
     */
    public CompletableFuture<ExecutionDescription> startExecutionAndWait(String stateMachineArn, String name,
            String input) {
        StateMachine sm = machine(stateMachineArn);
        if (sm.type == WorkflowType.EXPRESS) {
            startExecutionCalls.increment();
            String executionName = name == null ? UUID.randomUUID().toString() : name;
            Names.validate("name", executionName);
            return startExpress(sm, executionName, validatePayload(input == null ? "{}" : input)).closed();
        }
        children.listenOn(host);
        return startExecution(stateMachineArn, name, input).thenCompose(started -> {
            CompletableFuture<ExecutionDescription> closed = children.await(started.executionArn());
            ExecutionDescription now = describeExecution(started.executionArn());
            if (now.status().isClosed()) {
                children.closed(now);
            }
            return closed;
        });
    }

    private ExpressExecution startExpress(StateMachine sm, String name, byte[] input) {
        synchronized (sm) {
            if (sm.deleting) {
                throw deleting(sm);
            }
        }
        return express.start(sm, name, input);
    }

    /**
     * StartExecution with the name of an execution this state machine already has. AWS's rule (the
     * StartExecution API reference, on {@code name}): when the original execution is open and the new
     * call's input is identical, Success is returned (the original execution, nothing new runs); when
     * it is open and the input differs, {@code ExecutionAlreadyExists}; when it is closed,
     * {@code ExecutionAlreadyExists} regardless of input.
     */
    private static StartedExecution startAgain(Execution existing, byte[] input) {
        synchronized (existing) {
            if (existing.status == ExecutionStatus.RUNNING && Arrays.equals(existing.input, input)) {
                return new StartedExecution(existing.arn(), Instant.ofEpochMilli(existing.startMillis));
            }
            throw new StepFunctionsException(ErrorCode.EXECUTION_ALREADY_EXISTS, "Execution Already Exists: '"
                    + existing.arn() + "' (" + (existing.status == ExecutionStatus.RUNNING
                    ? "running with a different input" : "closed with status " + existing.status)
                    + "); execution names are unique per state machine");
        }
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
        return execution(executionArn).stop(error, cause);
    }

    public ExecutionDescription describeExecution(String executionArn) {
        return execution(executionArn).describe();
    }

    /** Newest first, optionally only one status. */
    public Page<ExecutionSummary> listExecutions(String stateMachineArn, ExecutionStatus statusFilter, int maxResults,
            String nextToken) {
        StateMachine sm = machine(stateMachineArn);
        if (sm.type == WorkflowType.EXPRESS) {
            throw new StepFunctionsException(ErrorCode.STATE_MACHINE_TYPE_NOT_SUPPORTED, "State machine type is not"
                    + " supported: ListExecutions does not list the executions of EXPRESS state machine '" + sm.arn
                    + "'; read its log instead");
        }
        Map<Execution, Execution> view = sm.newestFirst;
        if (nextToken != null) {
            String key = PageToken.EXECUTIONS.decode(nextToken);
            int colon = key.indexOf(':');
            try {
                view = sm.newestFirst.tailMap(Execution.probe(Long.parseLong(key.substring(0, colon)),
                        key.substring(colon + 1)), false);
            } catch (RuntimeException ex) {
                throw PageToken.invalid(nextToken);
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
                summary = new ExecutionSummary(e.arn(), sm.arn, e.name, e.status, Instant.ofEpochMilli(e.startMillis),
                        e.status.isClosed() ? Instant.ofEpochMilli(e.stopMillis) : null);
            }
            if (items.size() == maxResults) {
                next = PageToken.EXECUTIONS.encode(last.startMillis + ":" + last.name);
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
                from = Integer.parseInt(PageToken.HISTORY.decode(nextToken));
            } catch (NumberFormatException ex) {
                throw PageToken.invalid(nextToken);
            }
            if (from < 0 || from > events.size()) {
                throw PageToken.invalid(nextToken);
            }
        }
        int to = Math.min(events.size(), from + maxResults);
        return new Page<>(List.copyOf(events.subList(from, to)),
                to < events.size() ? PageToken.HISTORY.encode(Integer.toString(to)) : null);
    }

    // ---------------------------------------------------------------- lookups and checks

    private StateMachine machine(String stateMachineArn) {
        String name = host.arns.stateMachineName(stateMachineArn);
        StateMachine sm = registry.get(name);
        if (sm == null) {
            throw new StepFunctionsException(ErrorCode.STATE_MACHINE_DOES_NOT_EXIST,
                    "State Machine Does Not Exist: '" + stateMachineArn + "'");
        }
        return sm;
    }

    private Execution execution(String executionArn) {
        String[] names = host.arns.executionNames(executionArn);
        StateMachine sm = registry.get(names[0]);
        Execution e = sm == null ? null : sm.executionsByName.get(names[1]);
        if (e == null) {
            throw new StepFunctionsException(ErrorCode.EXECUTION_DOES_NOT_EXIST,
                    "Execution Does Not Exist: '" + executionArn + "'");
        }
        return e;
    }

    private static StepFunctionsException deleting(StateMachine sm) {
        return new StepFunctionsException(ErrorCode.STATE_MACHINE_DELETING,
                "State machine '" + sm.arn + "' is being deleted");
    }

    private static StateMachineDescription describe(StateMachine sm) {
        StateMachineRevision d = sm.current;
        return new StateMachineDescription(sm.arn, sm.name, sm.deleting ? "DELETING" : "ACTIVE", d.parsed().json(),
                d.roleArn(), sm.type.name(), Instant.ofEpochMilli(sm.creationMillis), Instant.ofEpochMilli(d.updateMillis()),
                sm.logging);
    }

    private static byte[] validatePayload(String input) {
        byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > StepFunctionsLimits.MAX_PAYLOAD_BYTES) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value at 'input'"
                    + " failed to satisfy constraint: Member must have length less than or equal to "
                    + StepFunctionsLimits.MAX_PAYLOAD_BYTES + " (it has " + bytes.length + " bytes)");
        }
        try {
            MAPPER.readTree(bytes);
        } catch (IOException e) {
            String detail = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
            throw new StepFunctionsException(ErrorCode.INVALID_EXECUTION_INPUT,
                    "Invalid State Machine Execution Input: '" + detail + "'");
        }
        return bytes;
    }

    /** Withdraws every run (a durable engine resumes them on its next start) and closes the journal. */
    @Override
    public void close() {
        for (StateMachine sm : registry.all()) {
            sm.executionsByName.values().forEach(Execution::withdraw);
        }
        express.withdrawAll();
        deadlines.close();
        host.close();
    }
}
