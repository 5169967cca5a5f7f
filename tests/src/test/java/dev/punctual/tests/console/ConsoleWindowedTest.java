package dev.punctual.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.RuntimeProgress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The console's API in windowed mode, where pending items live in the schedule index rather than in
 * one execution each: an item shows on {@code /api/pending} with the bucket execution that will reach
 * it, then on {@code /api/expired} with its lag, and on the overview's lag series.
 */
class ConsoleWindowedTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void windowedItem_isPendingWithItsBucket_thenExpiredWithItsLag() {
        try (ConsoleRuntime both = ConsoleRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED))) {
            ExpiryTable table = ExpiryTable.create(both.runtime(), "console-windowed");
            long ttl = Instant.now().getEpochSecond() + 12;
            table.putWithTtl("bucketed", ttl);
            URI console = both.console().uri();

            // The handler indexes the item, then starts its bucket's execution: wait for both.
            JsonNode pending = Await.valueWhileProgressing("the item on /api/pending with its bucket", RuntimeProgress.STALL, RuntimeProgress.of(both.runtime()),
                    () -> item(get(console, "api/pending?table=" + table.name()), "bucketed")
                            .filter(item -> item.hasNonNull("executionArn")));
            assertThat(pending.path("ttl").asText()).isEqualTo(Long.toString(ttl));
            assertThat(pending.path("expireAt").asLong()).isEqualTo(ttl * 1000);
            assertThat(pending.path("bucket").asText()).contains("-minute-");
            assertThat(pending.path("executionArn").asText()).contains(":execution:punctual-expire-bucket:");
            // Its bucket's runner (Express, no history) is shown on the bucket execution's page: where it is. The
            // runner passes through its Choice (MoreToDo) on its way to the Wait once its step has set the target,
            // so the wait is for the state, not for the first read that shows the target.
            JsonNode runner = Await.valueWhileProgressing("the bucket's runner waiting for the item's second", RuntimeProgress.STALL, RuntimeProgress.of(both.runtime()),
                    () -> runnerOf(console, pending.path("executionArn").asText())
                            .filter(r -> r.path("runner").path("target").asLong() == ttl)
                            .filter(r -> r.path("state").asText().equals("WaitForNextStep")));
            assertThat(runner.path("executionArn").asText()).contains(":express:punctual-run-bucket:");
            assertThat(runner.toString()).as("no key on the page's data").doesNotContain("bucketed");

            JsonNode expired = Await.valueWhileProgressing("the item on /api/expired", RuntimeProgress.STALL, RuntimeProgress.of(both.runtime()),
                    () -> item(get(console, "api/expired"), "bucketed"));
            assertThat(expired.path("outcome").asText()).isEqualTo("Expired");
            assertThat(expired.path("lagMs").asLong()).isBetween(0L, 2_000L);
            JsonNode overview = get(console, "api/overview");
            assertThat(overview.path("lag")).isNotEmpty();
            assertThat(overview.path("counters").path("early").asInt()).isZero();
            assertThat(get(console, "api/pending?table=" + table.name()).path("items")).isEmpty();
            JsonNode executions = get(console, "api/executions");
            assertThat(executions.path("stateMachineArn").asText()).as("the machine the handler starts, by default")
                    .isEqualTo(LocalDefaults.bucketStateMachineArn());
            assertThat(StreamSupport.stream(executions.path("stateMachines").spliterator(), false).map(JsonNode::asText))
                    .as("expire-item, deployed in every mode, and windowed mode's own")
                    .containsExactly(LocalDefaults.stateMachineArn(), LocalDefaults.bucketStateMachineArn());
        }
    }

    private static Optional<JsonNode> runnerOf(URI console, String bucketExecutionArn) {
        JsonNode body = get(console, "api/execution?arn=" + java.net.URLEncoder.encode(bucketExecutionArn,
                java.nio.charset.StandardCharsets.UTF_8));
        return StreamSupport.stream(body.path("runners").spliterator(), false).findFirst();
    }

    private static Optional<JsonNode> item(JsonNode body, String id) {
        return StreamSupport.stream(body.path("items").spliterator(), false)
                .filter(item -> item.path("key").asText().equals("{\"id\":{\"S\":\"" + id + "\"}}"))
                .findFirst();
    }

    private static JsonNode get(URI console, String path) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(console.resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
