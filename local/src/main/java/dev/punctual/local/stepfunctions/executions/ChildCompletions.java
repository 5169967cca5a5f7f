package dev.punctual.local.stepfunctions.executions;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Standard executions a {@code .sync} parent waits for, completed when they close. It listens to the
 * engine only once a parent first waits, so an engine that never runs {@code .sync} pays nothing for it.
 */
final class ChildCompletions implements ExecutionListener {

    private final Map<String, CompletableFuture<ExecutionDescription>> waiting = new ConcurrentHashMap<>();
    private final AtomicBoolean listening = new AtomicBoolean();

    void listenOn(ExecutionHost host) {
        if (listening.compareAndSet(false, true)) {
            host.addListener(this);
        }
    }

    /** Completes when the execution {@code executionArn} closes; several parents may wait for one child. */
    CompletableFuture<ExecutionDescription> await(String executionArn) {
        return waiting.computeIfAbsent(executionArn, arn -> new CompletableFuture<>());
    }

    @Override
    public void started(ExecutionDescription execution) {
    }

    @Override
    public void closed(ExecutionDescription execution) {
        CompletableFuture<ExecutionDescription> parent = waiting.remove(execution.executionArn());
        if (parent != null) {
            parent.complete(execution);
        }
    }
}
