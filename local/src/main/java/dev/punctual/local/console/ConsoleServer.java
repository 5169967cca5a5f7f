package dev.punctual.local.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.http.LoopbackHttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The local console: a few pages beside the app a developer works on, showing what will expire and
 * when, what just expired and how late, executions with their graph, and dead letters. Served on
 * 127.0.0.1 only with the JDK's HTTP server; every asset comes from the jar (the chart library from
 * its WebJar). The pages render with {@code console.js} from the JSON API under {@code /api/}, and
 * they put every value into the page as text, never as markup.
 *
 * <p>Every request must name the loopback address in its {@code Host} header, so a page on another
 * site cannot reach the console through a DNS name rebound to 127.0.0.1; the one request that
 * changes state (redrive) is a POST that also refuses any other {@code Origin}.
 */
public final class ConsoleServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ConsoleServer.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ASSETS = "/dev/punctual/local/console/";
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
    private static final int WORKERS = 4;
    /** The pages; each is the same shell, and {@code console.js} draws the one its {@code data-page} names. */
    private static final Map<String, String> PAGES = Map.of(
            "/", "overview",
            "/pending", "pending",
            "/expired", "expired",
            "/events", "events",
            "/executions", "executions",
            "/dead-letters", "dead-letters");
    private static final Map<String, String> TITLES = Map.of(
            "overview", "Overview", "pending", "Pending", "expired", "Recent expiries", "events", "Expiry events", "executions", "Executions",
            "execution", "Execution", "dead-letters", "Dead letters", "not-found", "Not found");
    private static final Map<String, String> ASSET_FILES = Map.of(
            "/assets/console.js", ASSETS + "console.js",
            "/assets/console.css", ASSETS + "console.css",
            "/assets/uplot/uPlot.iife.min.js", UPLOT + "uPlot.iife.min.js",
            "/assets/uplot/uPlot.min.css", UPLOT + "uPlot.min.css");

    private final ConsoleApi api;
    private LoopbackHttpServer server;
    /** The {@code Host} headers answered: none, so every request is refused, until the port is bound. */
    private volatile Set<String> allowedHosts = Set.of();

    private ConsoleServer(ConsoleApi api) {
        this.api = api;
    }

    /** Serves the console of {@code runtime} on 127.0.0.1:{@code port} (0 picks a free port). */
    public static ConsoleServer start(LocalRuntime runtime, int port) {
        return start(runtime, port, runtime.timer().clock());
    }

    static ConsoleServer start(LocalRuntime runtime, int port, Clock clock) {
        ConsoleServer console = new ConsoleServer(new ConsoleApi(runtime, clock));
        try {
            console.server = LoopbackHttpServer.start("console", new InetSocketAddress(LocalDefaults.LOOPBACK, port),
                    WORKERS, 64, console::serve);
        } catch (RuntimeException e) {
            console.api.close();
            throw e;
        }
        int bound = console.server.port();
        console.allowedHosts = Set.of(LocalDefaults.LOOPBACK + ":" + bound, "localhost:" + bound);
        return console;
    }

    /** The port it listens on. */
    public int port() {
        return server.port();
    }

    /** {@code http://127.0.0.1:<port>/}. */
    public URI uri() {
        return URI.create("http://" + LocalDefaults.LOOPBACK + ":" + port() + "/");
    }

    @Override
    public void close() {
        server.close();
        api.close();
    }

    private void serve(HttpExchange exchange) {
        try (exchange) {
            Response response;
            long cpuBefore = cpuNanos();
            try {
                response = route(exchange);
            } catch (IllegalArgumentException e) {
                response = Response.json(400, error(e.getMessage()));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "Console request " + exchange.getRequestMethod() + " "
                        + exchange.getRequestURI().getRawPath() + " failed: " + e);
                response = Response.json(500, error("The console could not answer: " + e.getClass().getSimpleName()));
            }
            long cpuAfter = cpuNanos();
            if (cpuBefore >= 0 && cpuAfter >= 0) {
                // What answering cost this console in CPU, whatever else the machine runs: a browser's developer
                // tools show it beside the request (Server-Timing), and the scale test reads it.
                exchange.getResponseHeaders().set("Server-Timing", String.format(java.util.Locale.ROOT,
                        "cpu;dur=%.1f;desc=\"console CPU\"", (cpuAfter - cpuBefore) / 1_000_000.0));
            }
            send(exchange, response);
        } catch (IOException | RuntimeException e) {
            // The browser went away mid-response; there is nobody left to answer.
            LOG.log(System.Logger.Level.DEBUG, "Console response not sent: " + e);
        }
    }

    private Response route(HttpExchange exchange) throws IOException {
        String host = exchange.getRequestHeaders().getFirst("Host");
        if (host == null || !allowedHosts.contains(host.toLowerCase(java.util.Locale.ROOT))) {
            return Response.text(421, "The console answers only requests addressed to " + LocalDefaults.LOOPBACK + ":"
                    + port() + " (Host was not a loopback address of this console).");
        }
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        if ("POST".equals(method)) {
            return post(exchange, path);
        }
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            return Response.text(405, "Method " + method + " is not allowed here.");
        }
        if (PAGES.containsKey(path)) {
            return page(200, PAGES.get(path));
        }
        if (path.startsWith("/executions/")) {
            String arn = decode(path.substring("/executions/".length()));
            return api.executionExists(arn) ? page(200, "execution") : page(404, "not-found");
        }
        if (ASSET_FILES.containsKey(path)) {
            return asset(ASSET_FILES.get(path));
        }
        if (path.startsWith("/api/")) {
            return get(path, query);
        }
        return page(404, "not-found");
    }

    private Response get(String path, Map<String, String> query) {
        int limit = limit(query.get("limit"));
        return switch (path) {
            case "/api/overview" -> Response.json(200, api.overview());
            case "/api/pending" -> Response.json(200, api.pending(emptyToNull(query.get("table")), query.get("after"), limit));
            case "/api/expired" -> Response.json(200, api.expired(emptyToNull(query.get("table")), limit));
            case "/api/events" -> Response.json(200, api.events(emptyToNull(query.get("table")), limit));
            case "/api/executions" -> Response.json(200, api.executions(query.get("stateMachine"), query.get("status"),
                    query.get("next"), limit));
            case "/api/execution" -> api.execution(query.get("arn")).map(body -> Response.json(200, body))
                    .orElseGet(() -> Response.json(404, error("No execution with that ARN.")));
            case "/api/dead-letters" -> Response.json(200, api.deadLetters());
            default -> Response.json(404, error("No API at this path."));
        };
    }

    private Response post(HttpExchange exchange, String path) throws IOException {
        exchange.getRequestBody().transferTo(OutputStream.nullOutputStream());
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        String host = exchange.getRequestHeaders().getFirst("Host");
        if (origin != null && !origin.equalsIgnoreCase("http://" + host)) {
            return Response.json(403, error("Cross-origin request refused: the console accepts changes only from its own pages."));
        }
        String prefix = "/api/dead-letters/";
        String suffix = "/redrive";
        if (path.startsWith(prefix) && path.endsWith(suffix) && path.length() > prefix.length() + suffix.length()) {
            String id = decode(path.substring(prefix.length(), path.length() - suffix.length()));
            if (!api.deadLetterExists(id)) {
                return Response.json(404, error("No dead letter with that id."));
            }
            return Response.json(200, api.redrive(id));
        }
        return Response.json(404, error("No action at this path."));
    }

    private Response page(int status, String page) {
        String html = resource(ASSETS + "page.html")
                .replace("{{page}}", page)
                .replace("{{title}}", TITLES.get(page));
        return new Response(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    private static Response asset(String resource) {
        String type = resource.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
        return new Response(200, type, resource(resource).getBytes(StandardCharsets.UTF_8));
    }

    private static String resource(String name) {
        try (InputStream in = ConsoleServer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("The console's resource " + name + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The uPlot WebJar's version, from its own Maven metadata: the POM is the one place it is written. */
    private static String uplotVersion() {
        Properties properties = new Properties();
        try (InputStream in = ConsoleServer.class.getResourceAsStream("/META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("The uPlot WebJar is missing from the classpath");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("version");
    }

    /** The CPU time the current thread has used, in nanoseconds; -1 where the JVM cannot tell. */
    private static long cpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
    }

    private static void send(HttpExchange exchange, Response response) throws IOException {
        var headers = exchange.getResponseHeaders();
        headers.set("Content-Type", response.contentType());
        headers.set("Cache-Control", "no-store");
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("X-Frame-Options", "DENY");
        headers.set("Referrer-Policy", "no-referrer");
        // Scripts only from the console itself; uPlot sizes its elements through inline styles.
        headers.set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
                + " img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(response.status(), head ? -1 : response.body().length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(response.body());
            }
        }
    }

    private static ObjectNode error(String message) {
        return JSON.createObjectNode().put("error", message);
    }

    private static int limit(String value) {
        if (value == null || value.isEmpty()) {
            return 50;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= ConsoleApi.MAX_PAGE) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // Answered below.
        }
        throw new IllegalArgumentException("limit must be 1-" + ConsoleApi.MAX_PAGE + ", got '" + value + "'");
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> values = new HashMap<>();
        if (raw == null) {
            return values;
        }
        for (String pair : raw.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                values.put(decode(pair.substring(0, equals)), decode(pair.substring(equals + 1)));
            }
        }
        return values;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    private record Response(int status, String contentType, byte[] body) {

        static Response json(int status, ObjectNode body) {
            try {
                return new Response(status, "application/json", JSON.writeValueAsBytes(body));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        static Response text(int status, String message) {
            return new Response(status, "text/plain; charset=utf-8", message.getBytes(StandardCharsets.UTF_8));
        }
    }
}
