package dev.punctual.local.stepfunctions.executions;

import dev.punctual.functions.DaemonThreads;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.ParsedDefinition;
import dev.punctual.local.stepfunctions.asl.errors.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import dev.punctual.local.stepfunctions.mocking.MockConfiguration;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.Timer;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * What every execution of one engine shares: the interpreter that runs it, the timer it waits on,
 * the journal its changes go to, the threads that launch runs, the registry it belongs to and the
 * {@link ExecutionListener}s told of its start and close. An execution reaches it through its
 * {@link StateMachine}, so the million idle executions a process may hold carry no reference of
 * their own.
 */
final class ExecutionHost {

    private static final System.Logger LOG = System.getLogger(ExecutionHost.class.getName());

    final Interpreter interpreter;
    final Timer timer;
    final Clock clock;
    final EndpointArns arns;
    final Registry registry;
    final ExecutorService launcher;
    /**
     * State transitions as AWS bills them: every state entered, and every retry of a Task (each
     * attempt is scheduled anew). Counted since the engine started; replayed history is not billed again.
     */
    final LongAdder billedTransitions = new LongAdder();
    /** Where executions of state machines that log send their events (CloudWatch Logs in AWS). */
    final ExecutionLog executionLog = new ExecutionLog();
    private final List<ExecutionListener> listeners = new CopyOnWriteArrayList<>();
    private volatile Journal journal = Journal.IN_MEMORY;
    /** The test cases StartExecution may name after a {@code #} (Step Functions Local's mocked service integrations). */
    private volatile MockConfiguration mocks = MockConfiguration.EMPTY;

    ExecutionHost(Interpreter interpreter, Timer timer, EndpointArns arns, Registry registry, int launcherThreads,
            InFlight work) {
        this.interpreter = interpreter;
        this.timer = timer;
        this.clock = timer.clock();
        this.arns = arns;
        this.registry = registry;
        this.launcher = work.pool(launcherThreads, DaemonThreads.named("sfn-launcher"));
    }

    Journal journal() {
        return journal;
    }

    void useJournal(Journal journal) {
        this.journal = journal;
    }

    void useMockConfiguration(MockConfiguration configuration) {
        this.mocks = configuration;
    }

    /**
     * The mocks of a new execution of {@code sm} started on {@code <ARN>#<testCase>}; {@link TaskMocks#NONE}
     * without a test case.
     *
     * @throws StepFunctionsException {@code InvalidName} when the mock configuration has no such test case
     *     for the state machine, as Step Functions Local refuses it
     */
    TaskMocks mocksFor(StateMachine sm, String testCase) {
        if (testCase == null) {
            return TaskMocks.NONE;
        }
        return mocks.testCase(sm.name, testCase)
                .orElseThrow(() -> new StepFunctionsException(ErrorCode.INVALID_NAME, "The mock configuration has no"
                        + " test case '" + testCase + "' for the state machine '" + sm.name + "'"))
                .forExecution();
    }

    void addListener(ExecutionListener listener) {
        listeners.add(listener);
    }

    void removeListener(ExecutionListener listener) {
        listeners.remove(listener);
    }

    /** After a new execution started: tells the listeners. */
    void started(Execution e) {
        tell(e, ExecutionListener::started);
    }

    /** After an execution closed, live or replayed: tells the listeners, then the registry. */
    void closed(Execution e) {
        tell(e, ExecutionListener::closed);
        registry.closed(e);
    }

    /** A listener's failure is its own: it must never break starting or closing an execution. */
    private void tell(Execution e, BiConsumer<ExecutionListener, ExecutionDescription> event) {
        if (listeners.isEmpty()) {
            return;
        }
        ExecutionDescription description = e.describe();
        for (ExecutionListener listener : listeners) {
            try {
                event.accept(listener, description);
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.WARNING, "An execution listener failed on " + description.name() + ": "
                        + ex);
            }
        }
    }

    /** Parses a definition, answering an invalid one as the API does. */
    ParsedDefinition parse(String definitionJson) {
        try {
            return interpreter.parse(definitionJson);
        } catch (InvalidDefinitionException e) {
            throw new StepFunctionsException(ErrorCode.INVALID_DEFINITION, "Invalid State Machine Definition: '"
                    + e.getMessage() + "'");
        }
    }

    void close() {
        launcher.shutdown();
        journal.close();
    }
}
