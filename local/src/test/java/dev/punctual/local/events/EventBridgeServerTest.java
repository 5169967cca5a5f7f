package dev.punctual.local.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.billing.CostMeter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.EventBridgeException;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;

/** The local EventBridge endpoint through the SDK's own {@link EventBridgeClient}, on a free loopback port. */
class EventBridgeServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    @TempDir
    Path dataDirectory;

    private final List<AutoCloseable> started = new ArrayList<>();
    private final PutEventsFaults faults = new PutEventsFaults();
    private final CostMeter costs = new CostMeter();

    private EventStore store;
    private EventBridgeServer server;
    private EventBridgeClient client;

    private void start(Path directory) {
        store = EventStore.in(directory);
        server = EventBridgeServer.start(new PutEventsApi(store, faults, Clock.fixed(NOW, ZoneOffset.UTC), "us-east-1",
                "123456789012", costs::expiryEvent), store, new InetSocketAddress("127.0.0.1", 0));
        client = EventBridgeClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .httpClientBuilder(Apache5HttpClient.builder())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .build();
        started.add(client);
        started.add(server);
        started.add(store);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    private static PutEventsRequestEntry entry(String detail) {
        return PutEventsRequestEntry.builder().eventBusName("default").source("punctual").detailType("Item Expired")
                .time(Instant.parse("2026-11-23T11:59:58.250Z"))
                .resources("arn:aws:dynamodb:us-east-1:123456789012:table/orders").detail(detail).build();
    }

    @Test
    void putEvents_storesTheEventAsARuleTargetReceivesIt() {
        start(null);

        PutEventsResponse response = client.putEvents(r -> r.entries(entry("{\"table\":\"orders\",\"id\":\"x\"}")));

        assertThat(response.failedEntryCount()).isZero();
        assertThat(response.entries()).hasSize(1);
        String eventId = response.entries().get(0).eventId();
        assertThat(eventId).isNotBlank();
        JsonNode event = store.all().get(0).event();
        assertThat(event.get("id").asText()).isEqualTo(eventId);
        assertThat(event.get("source").asText()).isEqualTo("punctual");
        assertThat(event.get("detail-type").asText()).isEqualTo("Item Expired");
        assertThat(event.get("time").asText()).isEqualTo("2026-11-23T11:59:58Z");
        assertThat(event.get("account").asText()).isEqualTo("123456789012");
        assertThat(event.get("region").asText()).isEqualTo("us-east-1");
        assertThat(event.get("resources").get(0).asText()).isEqualTo("arn:aws:dynamodb:us-east-1:123456789012:table/orders");
        assertThat(event.get("detail").get("table").asText()).isEqualTo("orders");
        assertThat(costs.snapshot(new CostMeter.EngineCounts(0, 0, 0, 0, 0, 0)).expiryEvents()).isEqualTo(1);
    }

    @Test
    void putEvents_refusesBadEntriesOneByOne_andKeepsTheRest() {
        start(null);

        PutEventsResponse response = client.putEvents(r -> r.entries(entry("{\"ok\":1}"), entry("not json"),
                entry("[1,2]"), entry("{\"big\":\"" + "x".repeat(256 * 1024) + "\"}"), entry("{\"ok\":2}")));

        assertThat(response.failedEntryCount()).isEqualTo(3);
        assertThat(response.entries()).extracting(e -> e.errorCode() == null ? "ok" : e.errorCode())
                .containsExactly("ok", "MalformedDetail", "MalformedDetail", "InvalidArgument", "ok");
        assertThat(store.size()).isEqualTo(2);
    }

    @Test
    void putEvents_withMoreThanTenEntries_failsTheCallWithAValidationError() {
        start(null);
        List<PutEventsRequestEntry> eleven = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            eleven.add(entry("{\"n\":" + i + "}"));
        }

        assertThatThrownBy(() -> client.putEvents(r -> r.entries(eleven)))
                .isInstanceOf(EventBridgeException.class)
                .satisfies(e -> assertThat(((EventBridgeException) e).awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThat(store.size()).isZero();
    }

    @Test
    void injectedFaults_refuseEntriesWithInternalFailure() {
        start(null);
        faults.failFraction(1.0, 7);

        PutEventsResponse response = client.putEvents(r -> r.entries(entry("{\"n\":1}"), entry("{\"n\":2}")));

        assertThat(response.failedEntryCount()).isEqualTo(2);
        assertThat(response.entries()).allSatisfy(e -> assertThat(e.errorCode()).isEqualTo("InternalFailure"));
        assertThat(store.size()).isZero();
    }

    @Test
    void withADataDirectory_eventsSurviveARestart_andPositionsContinue() throws Exception {
        start(dataDirectory);
        client.putEvents(r -> r.entries(entry("{\"table\":\"a\"}"), entry("{\"table\":\"b\"}")));
        stop();
        started.clear();

        start(dataDirectory);
        client.putEvents(r -> r.entries(entry("{\"table\":\"a\"}")));

        assertThat(store.all()).extracting(EventStore.StoredEvent::position).containsExactly(1L, 2L, 3L);
        assertThat(store.all()).extracting(EventStore.StoredEvent::table).containsExactly("a", "b", "a");
    }

    @Test
    void readEndpoint_pagesFromAPosition_andFiltersByTable() throws Exception {
        start(null);
        client.putEvents(r -> r.entries(entry("{\"table\":\"a\"}"), entry("{\"table\":\"b\"}"), entry("{\"table\":\"a\"}")));
        HttpClient http = HttpClient.newHttpClient();

        JsonNode all = get(http, "?after=0");
        JsonNode onlyA = get(http, "?after=1&table=a");

        assertThat(all.get("events")).hasSize(3);
        assertThat(all.get("next").asLong()).isEqualTo(3);
        assertThat(onlyA.get("events")).hasSize(1);
        assertThat(onlyA.get("events").get(0).get("detail").get("table").asText()).isEqualTo("a");
        assertThat(onlyA.get("next").asLong()).isEqualTo(3);
    }

    private JsonNode get(HttpClient http, String query) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + EventBridgeServer.EVENTS_PATH + query)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
