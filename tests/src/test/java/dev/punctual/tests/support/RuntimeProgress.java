package dev.punctual.tests.support;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A count of the work a {@link LocalRuntime} has done so far, for waits that fail only when nothing moves
 * ({@link dev.punctual.testing.Await#untilProgressing}): state transitions and executions started by its
 * engine, stream records its poller read, calls its stream handlers made, and deletes it made. A test's own
 * reads move none of them, so a test polling a table cannot keep a hung runtime's wait alive.
 */
public final class RuntimeProgress implements LongSupplier {

    /**
     * How long a runtime that owes work may show none before a wait gives up: far beyond a loaded machine's
     * pause (a GC, a starved thread, the SDK's backoff between retries), short beside a hang.
     */
    public static final Duration STALL = Duration.ofSeconds(15);

    private final LocalRuntime runtime;

    private RuntimeProgress(LocalRuntime runtime) {
        this.runtime = runtime;
    }

    /** The work of {@code runtime}. */
    public static RuntimeProgress of(LocalRuntime runtime) {
        return new RuntimeProgress(runtime);
    }

    @Override
    public long getAsLong() {
        StepFunctionsEngine engine = runtime.stepFunctionsEngine();
        long handlerCalls = runtime.observations().handlerCalls().snapshot().values().stream().mapToLong(Long::longValue).sum();
        return engine.billedTransitions() + engine.startExecutionCalls() + engine.expressRequests()
                + runtime.streamPoller().recordsRead() + handlerCalls + runtime.faults().injected().total();
    }
}
