package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.events.EventBridgeServer;
import dev.punctual.local.events.EventStore;
import dev.punctual.local.events.PutEventsApi;
import dev.punctual.local.events.PutEventsFaults;
import dev.punctual.local.retention.Retention;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code punctual events} against a real local EventBridge endpoint on a free loopback port. */
class EventsCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EventStore store;
    private EventBridgeServer server;
    private String endpoint;

    @BeforeEach
    void start() {
        start(EventStore.inMemory());
    }

    private void start(EventStore eventStore) {
        store = eventStore;
        server = EventBridgeServer.start(new PutEventsApi(store, new PutEventsFaults(), Clock.systemUTC(), "us-east-1",
                "123456789012", bytes -> { }), store, new InetSocketAddress("127.0.0.1", 0));
        endpoint = "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stop() {
        server.close();
        store.close();
    }

    private void expired(String table, String id, long lagMs) throws Exception {
        ObjectNode event = (ObjectNode) JSON.readTree("{\"version\":\"0\",\"id\":\"e-" + id + "\",\"detail-type\":\"Item Expired\","
                + "\"source\":\"punctual\",\"time\":\"2026-11-23T12:00:01Z\",\"detail\":{\"id\":\"" + id + "\",\"table\":\"" + table
                + "\",\"key\":{\"id\":{\"S\":\"" + id + "\"}},\"ttl\":\"1795435200\",\"expiredBy\":\"punctual\","
                + "\"deletedAt\":\"2026-11-23T12:00:01.072Z\",\"lagMs\":" + lagMs + "}}");
        store.append("default", event);
    }

    @Test
    void events_printsOneLinePerEvent_andFiltersByTable() throws Exception {
        expired("orders", "o-1", 72);
        expired("sessions", "s-1", 15);

        Result all = run("events", "--events-endpoint", endpoint);
        Result orders = run("events", "--events-endpoint", endpoint, "--table", "orders");

        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(all.out().lines().toList()).hasSize(2);
        assertThat(orders.out().lines().toList()).singleElement().satisfies(line -> assertThat(line)
                .contains("2026-11-23T12:00:01.072Z").contains("punctual").contains("lag 72 ms").contains("orders")
                .contains("{\"id\":{\"S\":\"o-1\"}}").contains("id=o-1"));
    }

    @Test
    void json_printsEachEventAsItsJson() throws Exception {
        expired("orders", "o-1", 72);

        Result result = run("events", "--events-endpoint", endpoint, "--json");

        List<String> lines = result.out().lines().toList();
        assertThat(lines).hasSize(1);
        JsonNode event = JSON.readTree(lines.get(0));
        assertThat(event.get("detail-type").asText()).isEqualTo("Item Expired");
        assertThat(event.get("detail").get("lagMs").asLong()).isEqualTo(72);
    }

    @Test
    void follow_printsEventsAsTheyArrive() throws Exception {
        expired("orders", "o-1", 72);
        StringWriter out = new StringWriter();
        Thread follower = new Thread(() -> PunctualCommand.run(new PrintWriter(out, true), new PrintWriter(new StringWriter()),
                "events", "--events-endpoint", endpoint, "--follow"));
        follower.setDaemon(true);
        follower.start();
        try {
            awaitOutput(out, "id=o-1");
            expired("orders", "o-2", 10);
            awaitOutput(out, "id=o-2");
            assertThat(follower.isAlive()).as("still following").isTrue();
        } finally {
            follower.interrupt();
            follower.join(Duration.ofSeconds(5).toMillis());
        }
    }

    @Test
    void events_whenTheRuntimeKeptFewerThanWerePublished_saysHowManyWereDropped() throws Exception {
        stop();
        start(EventStore.in(null, Retention.of(2, Duration.ofHours(1)), Clock.systemUTC()));
        for (int i = 1; i <= 5; i++) {
            expired("orders", "o-" + i, 10);
        }

        Result result = run("events", "--events-endpoint", endpoint, "--json");

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out().lines().toList()).hasSize(2);
        assertThat(result.err()).contains("3 earlier events of 5 published are no longer kept")
                .contains("--retain events=");
    }

    @Test
    void events_whenEveryPublishedEventIsKept_saysNothingOfDrops() throws Exception {
        expired("orders", "o-1", 10);

        Result result = run("events", "--events-endpoint", endpoint);

        assertThat(result.err()).isEmpty();
    }

    @Test
    void noEndpoint_saysWhereToFindIt() {
        server.close();

        Result result = run("events", "--events-endpoint", endpoint);

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.err()).contains("No EventBridge endpoint answers at " + endpoint).contains("punctual local");
    }

    private static void awaitOutput(StringWriter out, String text) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!out.toString().contains(text) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(out.toString()).contains(text);
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = PunctualCommand.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(exitCode, out.toString(), err.toString());
    }

    private record Result(int exitCode, String out, String err) {
    }
}
