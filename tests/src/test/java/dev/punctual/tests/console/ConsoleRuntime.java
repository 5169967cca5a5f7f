package dev.punctual.tests.console;

import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.runtime.LocalRuntime;

/** A runtime on free loopback ports with its console, for one test class; closing stops both. */
record ConsoleRuntime(LocalRuntime runtime, ConsoleServer console) implements AutoCloseable {

    static ConsoleRuntime start(LocalRuntime.Options options) {
        LocalRuntime runtime = LocalRuntime.start(options);
        try {
            return new ConsoleRuntime(runtime, ConsoleServer.start(runtime, 0));
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
    }

    /** Closes {@code started} if it is not {@code null} (a {@code @BeforeAll} may have failed before it). */
    static void closeIfStarted(ConsoleRuntime started) {
        if (started != null) {
            started.close();
        }
    }

    @Override
    public void close() {
        try {
            console.close();
        } finally {
            runtime.close();
        }
    }
}
