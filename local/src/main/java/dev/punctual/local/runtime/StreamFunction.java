package dev.punctual.local.runtime;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.billing.HandlerCalls;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.statemachine.StreamWiring;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private final HandlerCalls calls;
    private final Map<WatchedTable, ExpiryStreamHandler> handlers = new ConcurrentHashMap<>();
    /** The handlers, each closing the parts it was built with. */
    private final Lifetimes owned = new Lifetimes("the stream function");

    /** A function whose handler for a table gets {@code environments.apply(table)} as its environment. */
    StreamFunction(Function<WatchedTable, Map<String, String>> environments, FunctionHost host, HandlerCalls calls) {
        this.calls = calls;
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
        FunctionParts.Builder parts = FunctionParts.builder(environments.apply(table))
                .dynamoDb(calls.counting(host.dynamoDbFor("handler")))
                .clock(host.clock())
                .sleeper(host.sleeper())
                .metrics(host.metrics());
        host.stepFunctions().inProcessTransport().map(calls::counting).ifPresent(parts::stepFunctionsTransport);
        return owned.own(new ExpiryStreamHandler(parts.build()));
    }

    /** Closes every handler (and so the clients its parts built). Call once the poller invokes no more. */
    @Override
    public void close() {
        owned.close();
    }
}
