package dev.punctual.local.runtime;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.statemachine.StreamWiring;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * The stream function as the local event source mapping invokes it: one real
 * {@link ExpiryStreamHandler} per watched table, built from the environment the construct sets in
 * Lambda, on the runtime's {@link FunctionHost} (its DynamoDB client, clock, waits, metrics, and Step
 * Functions calls in-process unless they go over HTTP). Each invocation is billed as Lambda would.
 */
final class StreamFunction implements AutoCloseable {

    private final Function<WatchedTable, Map<String, String>> environments;
    private final FunctionHost host;
    private final Map<WatchedTable, ExpiryStreamHandler> handlers = new ConcurrentHashMap<>();
    /** The handlers, and their Step Functions adapters over the in-process transport, which close after them. */
    private final Lifetimes owned = new Lifetimes("the stream function");

    /** A function whose handler for a table gets {@code environments.apply(table)} as its environment. */
    StreamFunction(Function<WatchedTable, Map<String, String>> environments, FunctionHost host) {
        this.environments = environments;
        this.host = host;
    }

    /** The function for {@code table}'s stream, as the poller invokes it; the handler is built on first use. */
    RequestHandler<DynamodbEvent, StreamsEventResponse> handlerFor(WatchedTable table) {
        ExpiryStreamHandler handler = handlers.computeIfAbsent(table, this::newHandler);
        return (event, context) -> host.invoke(StreamWiring.STREAM_FUNCTION_MEMORY_MB,
                () -> handler.handleRequest(event, context));
    }

    private ExpiryStreamHandler newHandler(WatchedTable table) {
        Map<String, String> environment = environments.apply(table);
        ExpiryStreamHandler.Collaborators.Builder parts = ExpiryStreamHandler.Collaborators.builder(environment)
                .dynamoDb(host.dynamoDb())
                .clock(host.clock())
                .backoff(new ThrottleBackoff(host.clock(), host.sleeper()::sleep, ThreadLocalRandom.current()))
                .eventBackoff(host.sleeper())
                .metrics(host.metrics());
        host.stepFunctions().inProcessExecutions(parts.settings(), environment)
                .ifPresent(executions -> parts.executions(owned.own(executions)));
        return owned.own(new ExpiryStreamHandler(parts.build()));
    }

    /** Closes every handler, each before its Step Functions adapter. Call once the poller invokes no more. */
    @Override
    public void close() {
        owned.close();
    }
}
