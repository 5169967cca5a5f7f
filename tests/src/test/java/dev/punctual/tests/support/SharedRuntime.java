package dev.punctual.tests.support;

import dev.punctual.local.runtime.LocalRuntime;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives test classes one {@link LocalRuntime} (in memory, free ports, cancellation on) for the whole
 * test run: started on first use, closed once every test has finished. Starting DynamoDB Local is
 * the slow part of a run, so classes share it; each test isolates itself with its own table.
 *
 * <p>Use {@code @ExtendWith(SharedRuntime.class)} and take a {@code LocalRuntime} parameter, e.g. in
 * a {@code @BeforeAll} method. Tests that change the runtime's global state (fault injection) should
 * start their own runtime instead.
 */
public final class SharedRuntime implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedRuntime.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LocalRuntime.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        // The root store closes AutoCloseable values when the root context closes: after the last test.
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(LocalRuntime.class,
                type -> LocalRuntime.start(LocalRuntime.Options.onFreePorts()), LocalRuntime.class);
    }
}
