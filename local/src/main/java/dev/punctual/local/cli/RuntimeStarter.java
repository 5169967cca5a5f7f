package dev.punctual.local.cli;

import dev.punctual.local.runtime.LocalRuntime;
import java.io.UncheckedIOException;
import java.net.BindException;

/** Starts the runtime, turning a taken port into a message that says which option to change. */
final class RuntimeStarter {

    private RuntimeStarter() {
    }

    static LocalRuntime start(LocalRuntime.Options options) {
        try {
            return LocalRuntime.start(options);
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof BindException && e.getMessage() != null && e.getMessage().contains("EventBridge")) {
                throw new IllegalStateException("Port " + options.eventsPort()
                        + " for the EventBridge endpoint is in use; pass --events-port with a free port (0 picks one)", e);
            }
            if (e.getCause() instanceof BindException) {
                throw new IllegalStateException("Port " + options.stepFunctionsPort()
                        + " for the Step Functions API is in use; pass --sfn-port with a free port (0 picks one)", e);
            }
            throw e;
        }
    }
}
