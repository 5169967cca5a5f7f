package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.statemachine.StepFunctionsLimits;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Step Functions API's operations on executions, with AWS's rules for names, idempotent
 * StartExecution, StopExecution, history and pagination for Standard ones; an Express one is started
 * with none of them ({@link ExpressExecutions}), and the calls AWS does not serve for Express executions
 * are refused. Each execution then runs its own lifecycle ({@link Execution}, {@link ExpressExecution});
 * the one-year limit is {@link Deadlines}'.
 */
final class ExecutionOperations {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final Registry registry;
    private final ExecutionHost host;
    private final Deadlines deadlines;
    private final StateMachineOperations stateMachines;
    private final ExpressExecutions express;
    private final ChildCompletions children = new ChildCompletions();
    private final LongAdder startExecutionCalls = new LongAdder();

    ExecutionOperations(Registry registry, ExecutionHost host, Deadlines deadlines,
            StateMachineOperations stateMachines, ExpressExecutions express) {
        this.registry = registry;
        this.host = host;
        this.deadlines = deadlines;
        this.stateMachines = stateMachines;
        this.express = express;
    }

    /** StartExecution calls received, accepted or not. */
    long startExecutionCalls() {
        return startExecutionCalls.sum();
    }

    /**
     * Starts an execution. The future completes once its start is durable and its run launched. A
     * name already used answers as {@link #startAgain} says.
     *
     * @param name {@code null} for a random UUID
     * @param input {@code null} for {@code {}}
     */
    CompletableFuture<StartedExecution> startExecution(String stateMachineArn, String name, String input) {
        startExecutionCalls.increment();
        TestCaseArn target = TestCaseArn.of(stateMachineArn);
        StateMachine sm = stateMachines.machine(target.stateMachineArn());
        String executionName = name == null ? UUID.randomUUID().toString() : name;
        Names.validate("name", executionName);
        byte[] inputBytes = validatePayload(input == null ? "{}" : input);
        TaskMocks mocks = host.mocksFor(sm, target.testCase());
        if (sm.type == WorkflowType.EXPRESS) {
            ExpressExecution started = startExpress(sm, executionName, inputBytes, mocks);
            return CompletableFuture.completedFuture(new StartedExecution(started.arn,
                    Instant.ofEpochMilli(started.startMillis)));
        }
        Execution created;
        CompletableFuture<Void> durable;
        synchronized (sm) {
            if (sm.deleting) {
                throw StateMachineOperations.deleting(sm);
            }
            Execution existing = sm.executionsByName.get(executionName);
            if (existing != null) {
                return CompletableFuture.completedFuture(startAgain(existing, inputBytes));
            }
            registry.open();
            created = new Execution(sm, sm.current, executionName, host.clock.millis(), inputBytes);
            created.useMocks(mocks);
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

    /** As {@link StepFunctionsEngine#startExecutionAndWait}. */
    CompletableFuture<ExecutionDescription> startExecutionAndWait(String stateMachineArn, String name, String input,
            Consumer<StartedExecution> startedFirst) {
        TestCaseArn target = TestCaseArn.of(stateMachineArn);
        StateMachine sm = stateMachines.machine(target.stateMachineArn());
        if (sm.type == WorkflowType.EXPRESS) {
            startExecutionCalls.increment();
            String executionName = name == null ? UUID.randomUUID().toString() : name;
            Names.validate("name", executionName);
            ExpressExecution child = startExpress(sm, executionName, validatePayload(input == null ? "{}" : input),
                    host.mocksFor(sm, target.testCase()));
            startedFirst.accept(new StartedExecution(child.arn, Instant.ofEpochMilli(child.startMillis)));
            return child.closed();
        }
        children.listenOn(host);
        return startExecution(stateMachineArn, name, input).thenCompose(started -> {
            startedFirst.accept(started);
            CompletableFuture<ExecutionDescription> closed = children.await(started.executionArn());
            ExecutionDescription now = describeExecution(started.executionArn());
            if (now.status().isClosed()) {
                children.closed(now);
            }
            return closed;
        });
    }

    /**
     * StartSyncExecution: starts an execution of an Express state machine and completes once it has closed,
     * with its description and billing. A Standard machine is refused ({@code StateMachineTypeNotSupported}),
     * as AWS refuses it.
     *
     * @param name {@code null} for a random UUID
     * @param input {@code null} for {@code {}}
     */
    CompletableFuture<SyncExecutionResult> startSyncExecution(String stateMachineArn, String name, String input) {
        TestCaseArn target = TestCaseArn.of(stateMachineArn);
        StateMachine sm = stateMachines.machine(target.stateMachineArn());
        if (sm.type != WorkflowType.EXPRESS) {
            throw new StepFunctionsException(ErrorCode.STATE_MACHINE_TYPE_NOT_SUPPORTED, "State machine type is not"
                    + " supported: StartSyncExecution runs EXPRESS state machines only, not '" + sm.arn + "'");
        }
        String executionName = name == null ? UUID.randomUUID().toString() : name;
        Names.validate("name", executionName);
        return startExpress(sm, executionName, validatePayload(input == null ? "{}" : input),
                host.mocksFor(sm, target.testCase())).synchronousResult();
    }

    private ExpressExecution startExpress(StateMachine sm, String name, byte[] input, TaskMocks mocks) {
        synchronized (sm) {
            if (sm.deleting) {
                throw StateMachineOperations.deleting(sm);
            }
        }
        return express.start(sm, name, input, mocks);
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
    CompletableFuture<Instant> stopExecution(String executionArn, String error, String cause) {
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

    ExecutionDescription describeExecution(String executionArn) {
        return execution(executionArn).describe();
    }

    /** Newest first, optionally only one status. */
    Page<ExecutionSummary> listExecutions(String stateMachineArn, ExecutionStatus statusFilter, int maxResults,
            String nextToken) {
        StateMachine sm = stateMachines.machine(stateMachineArn);
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
    Page<HistoryEvent> getExecutionHistory(String executionArn, int maxResults, String nextToken,
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
}
