package dev.punctual.local.stepfunctions.executions;

import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registered state machine and its executions, indexed by name and newest first. An Express machine's
 * executions are not here: they are kept only while they run ({@link ExpressExecutions}).
 */
final class StateMachine {

    /** ListExecutions order: newest first, then by name so the order is total. */
    static final Comparator<Execution> NEWEST_FIRST = Comparator
            .comparingLong((Execution e) -> -e.startMillis)
            .thenComparing(e -> e.name);

    final ExecutionHost host;
    final String name;
    final String arn;
    /** Also tells incarnations of one name apart: it grows strictly from one incarnation to the next. */
    final long creationMillis;
    /** Standard or Express, fixed at creation as in AWS. */
    final WorkflowType type;
    /** Where and what its executions log; only Express executions are logged here. */
    volatile ExecutionLogging logging;
    volatile StateMachineRevision current;
    volatile boolean deleting;
    final Map<Integer, StateMachineRevision> revisions = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Execution> executionsByName = new ConcurrentHashMap<>();
    final ConcurrentNavigableMap<Execution, Execution> newestFirst = new ConcurrentSkipListMap<>(NEWEST_FIRST);
    final AtomicInteger running = new AtomicInteger();

    StateMachine(ExecutionHost host, String name, String arn, long creationMillis, StateMachineRevision first) {
        this(host, name, arn, creationMillis, first, WorkflowType.STANDARD, ExecutionLogging.OFF);
    }

    StateMachine(ExecutionHost host, String name, String arn, long creationMillis, StateMachineRevision first,
            WorkflowType type, ExecutionLogging logging) {
        this.host = host;
        this.name = name;
        this.arn = arn;
        this.creationMillis = creationMillis;
        this.type = type;
        this.logging = logging;
        addRevision(first);
    }

    void addRevision(StateMachineRevision revision) {
        revisions.put(revision.revision(), revision);
        if (current == null || revision.revision() > current.revision()) {
            current = revision;
        }
    }

    void add(Execution execution) {
        executionsByName.put(execution.name, execution);
        newestFirst.put(execution, execution);
    }

    void forget(Execution execution) {
        executionsByName.remove(execution.name, execution);
        newestFirst.remove(execution, execution);
    }
}
