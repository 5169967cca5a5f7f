package dev.punctual.local.events;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.punctual.local.http.LoopbackHttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The local EventBridge endpoint: {@code PutEvents} for the AWS SDKs and CLI on {@code POST /}
 * ({@link PutEventsApi}), and, for {@code punctual events}, the stored events on
 * {@code GET /punctual/events?after=N[&table=T][&limit=L]} as {@code {"events":[…],"next":N,"dropped":D,"published":P}}:
 * {@code dropped} events after {@code N} are no longer kept ({@code --retain events}), of {@code published} in all.
 */
public final class EventBridgeServer implements AutoCloseable {

    /** Where {@code punctual events} reads the stored events. */
    public static final String EVENTS_PATH = "/punctual/events";
    /** Larger request bodies are refused: ten entries of 256 KB fit with room to spare. */
    static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;
    /** The most events one read returns. */
    static final int MAX_PAGE = 1000;
    private static final int WORKERS = 4;

    private static final System.Logger LOG = System.getLogger(EventBridgeServer.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LoopbackHttpServer server;

    private EventBridgeServer(LoopbackHttpServer server) {
        this.server = server;
    }

    /** Serves {@code api} and {@code store} on {@code address} (port 0 picks a free one). */
    public static EventBridgeServer start(PutEventsApi api, EventStore store, InetSocketAddress address) {
        return new EventBridgeServer(LoopbackHttpServer.start("EventBridge endpoint", address, WORKERS, 64,
                exchange -> serve(api, store, exchange)));
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }

    private static void serve(PutEventsApi api, EventStore store, HttpExchange exchange) {
        try (exchange) {
            PutEventsApi.Response response;
            if ("GET".equals(exchange.getRequestMethod()) && EVENTS_PATH.equals(exchange.getRequestURI().getPath())) {
                response = read(store, query(exchange.getRequestURI().getRawQuery()));
            } else if (!"POST".equals(exchange.getRequestMethod())) {
                response = new PutEventsApi.Response(405, new byte[0], null);
            } else {
                byte[] body = exchange.getRequestBody().readNBytes(MAX_REQUEST_BYTES + 1);
                response = body.length > MAX_REQUEST_BYTES
                        ? new PutEventsApi.Response(413, new byte[0], null)
                        : api.handle(exchange.getRequestHeaders().getFirst("X-Amz-Target"), body);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.1");
            exchange.getResponseHeaders().set("x-amzn-RequestId", UUID.randomUUID().toString());
            if (response.errorType() != null) {
                exchange.getResponseHeaders().set("X-Amzn-ErrorType", response.errorType());
            }
            exchange.sendResponseHeaders(response.status(), response.body().length == 0 ? -1 : response.body().length);
            if (response.body().length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(response.body());
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "EventBridge endpoint request failed: " + e);
        }
    }

    private static PutEventsApi.Response read(EventStore store, Map<String, String> query) throws IOException {
        long after;
        int limit;
        try {
            after = Long.parseLong(query.getOrDefault("after", "0"));
            limit = Math.min(MAX_PAGE, Integer.parseInt(query.getOrDefault("limit", "" + MAX_PAGE)));
        } catch (NumberFormatException e) {
            return new PutEventsApi.Response(400, "after and limit are whole numbers".getBytes(StandardCharsets.UTF_8), null);
        }
        EventStore.Page page = store.after(after, query.get("table"), Math.max(1, limit));
        ObjectNode body = JSON.createObjectNode();
        ArrayNode events = body.putArray("events");
        page.events().forEach(event -> events.add(event.event()));
        body.put("next", page.next());
        body.put("dropped", page.dropped());
        body.put("published", store.published());
        return new PutEventsApi.Response(200, JSON.writeValueAsBytes(body), null);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> query = new HashMap<>();
        if (raw == null) {
            return query;
        }
        for (String pair : raw.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                query.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        return query;
    }
}
