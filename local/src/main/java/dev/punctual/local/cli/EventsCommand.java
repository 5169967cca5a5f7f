package dev.punctual.local.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.events.EventBridgeServer;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.statemachine.ExpiryEvents;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code punctual events}: the {@code ItemExpired} events the local runtime's EventBridge endpoint
 * received, one per line, oldest first; with {@code --follow}, new ones as they come.
 */
@Command(name = "events", mixinStandardHelpOptions = true,
        description = "Show the expiry events (ItemExpired) the local runtime received, one per line.")
final class EventsCommand implements Callable<Integer> {

    /** How often {@code --follow} asks for new events. */
    static final Duration FOLLOW_INTERVAL = Duration.ofMillis(250);

    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Option(names = "--events-endpoint", paramLabel = "URL",
            description = "The EventBridge endpoint `punctual local` printed (default: ${DEFAULT-VALUE}).")
    URI endpoint = LocalDefaults.endpoint(LocalDefaults.EVENTS_PORT);

    @Option(names = "--table", paramLabel = "T", description = "Only this table's events.")
    String table;

    @Option(names = "--follow", description = "Keep printing new events as they arrive, until Ctrl-C.")
    boolean follow;

    @Option(names = "--json", description = "Print each event's JSON, as an EventBridge rule's target receives it.")
    boolean json;

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long after = 0;
        while (true) {
            JsonNode page = read(http, after);
            long dropped = page.path("dropped").asLong(0);
            if (dropped > 0) {
                // On stderr, so --json's standard output stays one event per line.
                PrintWriter err = spec.commandLine().getErr();
                err.println(droppedNote(dropped, page.path("published").asLong(0)));
                err.flush();
            }
            for (JsonNode event : page.path("events")) {
                out.println(json ? JSON.writeValueAsString(event) : line(event));
            }
            out.flush();
            long next = page.path("next").asLong(after);
            if (!follow) {
                return 0;
            }
            if (next == after) {
                Thread.sleep(FOLLOW_INTERVAL.toMillis());
            }
            after = next;
        }
    }

    private JsonNode read(HttpClient http, long after) throws IOException, InterruptedException {
        String query = "?after=" + after + (table == null ? "" : "&table=" + URLEncoder.encode(table, StandardCharsets.UTF_8));
        URI uri = endpoint.resolve(EventBridgeServer.EVENTS_PATH + query);
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new IllegalStateException("No EventBridge endpoint answers at " + endpoint
                    + "; start `punctual local` and pass the URL on its EventBridge line with --endpoint", e);
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException(endpoint + " answered HTTP " + response.statusCode()
                    + "; is it the EventBridge endpoint of `punctual local`?");
        }
        return JSON.readTree(response.body());
    }

    /** What {@code punctual events} says when the runtime no longer keeps some of the events asked for. */
    static String droppedNote(long dropped, long published) {
        return String.format(Locale.ROOT, "%,d earlier events of %,d published are no longer kept by the runtime"
                + " (it keeps the newest; raise --retain events=COUNT or events=AGE on punctual local to keep more)",
                dropped, published);
    }

    /** {@code <deletedAt>  <expiredBy>  lag <ms>  <table>  <key>  id=<id>}; other events by source and type. */
    static String line(JsonNode event) {
        JsonNode detail = event.path("detail");
        if (!ExpiryEvents.SOURCE.equals(event.path("source").asText())) {
            return String.format("%-24s  %s / %s  %s", event.path("time").asText(), event.path("source").asText(),
                    event.path("detail-type").asText(), detail);
        }
        String lag = detail.has(ExpiryEvents.LAG_MS) ? detail.get(ExpiryEvents.LAG_MS).asLong() + " ms" : "?";
        return String.format("%-24s  %-10s  lag %-9s  %-20s  %s  id=%s%s",
                detail.path(ExpiryEvents.DELETED_AT).asText(), detail.path(ExpiryEvents.EXPIRED_BY).asText(), lag,
                detail.path(ExpiryEvents.TABLE).asText(), detail.path(ExpiryEvents.KEY), detail.path(ExpiryEvents.ID).asText(),
                detail.has(ExpiryEvents.OLD_IMAGE_OMITTED) ? "  (old image omitted: " + detail.get(ExpiryEvents.OLD_IMAGE_OMITTED).asText() + ")" : "");
    }
}
