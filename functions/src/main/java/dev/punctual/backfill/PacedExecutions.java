package dev.punctual.backfill;

import dev.punctual.expiry.Executions;
import java.util.Objects;

/**
 * {@link Executions} whose StartExecution calls wait for a permit of a {@link RateLimiter}: backfill
 * stays under the account's StartExecution quota, which the stream handler shares. Describe and stop
 * pass straight through.
 */
public final class PacedExecutions implements Executions {

    private final Executions delegate;
    private final RateLimiter starts;

    public PacedExecutions(Executions delegate, RateLimiter starts) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.starts = Objects.requireNonNull(starts, "starts");
    }

    @Override
    public StartResult start(String name, String inputJson) {
        try {
            starts.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pacing StartExecution " + name, e);
        }
        return delegate.start(name, inputJson);
    }

    @Override
    public Holder describe(String name) {
        return delegate.describe(name);
    }

    @Override
    public StopResult stop(String name) {
        return delegate.stop(name);
    }
}
