package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/** One function instance per watched table, built once by the runtime's factory and then reused. */
final class HandlerRegistry {

    private final Function<WatchedTable, RequestHandler<DynamodbEvent, StreamsEventResponse>> factory;
    private final Map<WatchedTable, RequestHandler<DynamodbEvent, StreamsEventResponse>> handlers = new ConcurrentHashMap<>();

    HandlerRegistry(Function<WatchedTable, RequestHandler<DynamodbEvent, StreamsEventResponse>> factory) {
        this.factory = factory;
    }

    RequestHandler<DynamodbEvent, StreamsEventResponse> handlerFor(WatchedTable table) {
        return handlers.computeIfAbsent(table, factory);
    }
}
