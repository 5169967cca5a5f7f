package dev.punctual.local.stepfunctions.executions;

import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's running Express executions, and what they cost as AWS bills them (Step Functions
 * pricing, Express workflows): one request per execution started, and its duration, rounded up to the
 * next 100 ms, at the memory it used, in 64 MB steps.
 *
 * <p>AWS does not publish how it measures an execution's memory ("based on the size of the workflow
 * definition, the use of Map or Parallel states, and the execution (payload) data size"): here it is
 * the definition's size plus the largest payload the execution carried, rounded up to 64 MB, so any
 * execution this project runs bills the smallest step.
 */
final class ExpressExecutions {

    /** Express duration is billed in steps of this many milliseconds. */
    static final long BILLING_STEP_MILLIS = 100;
    /** Express memory is billed in steps of this many bytes. */
    static final long MEMORY_STEP_BYTES = 64L * 1024 * 1024;

    private final ExecutionHost host;
    private final Set<ExpressExecution> running = ConcurrentHashMap.newKeySet();
    private final LongAdder requests = new LongAdder();
    private final LongAdder billedMillis = new LongAdder();
    private final DoubleAdder gbSeconds = new DoubleAdder();

    ExpressExecutions(ExecutionHost host) {
        this.host = host;
    }

    /**
     * Starts an execution of {@code sm}: no name-based idempotency (the same name twice runs twice), an
     * ARN of its own, nothing journaled.
     */
    ExpressExecution start(StateMachine sm, String name, byte[] input, TaskMocks mocks) {
        String arn = host.arns.expressExecution(sm.name, name, UUID.randomUUID().toString());
        ExpressExecution execution = new ExpressExecution(this, sm, name, arn, host.clock.millis(), input, mocks);
        requests.increment();
        running.add(execution);
        host.launcher.execute(execution::launch);
        return execution;
    }

    /** What one execution was billed: its duration in 100 ms steps, its memory in 64 MB steps. */
    record Billing(long billedMillis, long memoryBytes) {
    }

    /**
     * Bills a closed execution that ran for {@code durationMillis} holding {@code bytes} of definition and
     * payload, and says what it billed.
     */
    Billing closed(ExpressExecution execution, long durationMillis, long bytes) {
        running.remove(execution);
        long billed = Math.max(1, (Math.max(0, durationMillis) + BILLING_STEP_MILLIS - 1) / BILLING_STEP_MILLIS)
                * BILLING_STEP_MILLIS;
        long memory = Math.max(1, (bytes + MEMORY_STEP_BYTES - 1) / MEMORY_STEP_BYTES) * MEMORY_STEP_BYTES;
        billedMillis.add(billed);
        gbSeconds.add(memory / (1024.0 * 1024 * 1024) * billed / 1000.0);
        return new Billing(billed, memory);
    }

    /** Executions started since the engine started: Express requests. */
    long requests() {
        return requests.sum();
    }

    /** Billed duration of the executions closed since the engine started, in milliseconds. */
    long billedMillis() {
        return billedMillis.sum();
    }

    /** GB-seconds billed for the executions closed since the engine started. */
    double gbSeconds() {
        return gbSeconds.sum();
    }

    /** The running executions, oldest first. */
    List<ExpressExecution> running() {
        List<ExpressExecution> all = new ArrayList<>(running);
        all.sort(Comparator.comparingLong((ExpressExecution e) -> e.startMillis).thenComparing(e -> e.arn));
        return all;
    }

    /** Stops every run where it is (the engine is closing). */
    void withdrawAll() {
        running.forEach(ExpressExecution::withdraw);
    }
}
