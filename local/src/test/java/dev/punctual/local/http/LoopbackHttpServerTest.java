package dev.punctual.local.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.runtime.LocalDefaults;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LoopbackHttpServerTest {

    @Test
    void wildcardAddress_isRefused_beforeAnythingListens() {
        assertThatThrownBy(() -> LoopbackHttpServer.start("test endpoint", new InetSocketAddress("0.0.0.0", 0), 1, 8,
                exchange -> exchange.close()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("test endpoint binds a loopback address only");
    }

    @Test
    void loopbackAddress_servesTheHandler_onAFreePort() throws Exception {
        byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
        try (LoopbackHttpServer server = LoopbackHttpServer.start("test endpoint",
                new InetSocketAddress(LocalDefaults.LOOPBACK, 0), 2, 8, exchange -> {
                    exchange.sendResponseHeaders(200, body.length);
                    exchange.getResponseBody().write(body);
                    exchange.close();
                })) {
            assertThat(server.port()).isPositive();
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/any")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("ok");
        }
    }

    @Test
    void takenPort_namesTheEndpointAndAddress() {
        try (LoopbackHttpServer first = LoopbackHttpServer.start("first", new InetSocketAddress(LocalDefaults.LOOPBACK, 0), 1, 8,
                exchange -> exchange.close())) {
            assertThatThrownBy(() -> LoopbackHttpServer.start("second endpoint",
                    new InetSocketAddress(LocalDefaults.LOOPBACK, first.port()), 1, 8, exchange -> exchange.close()))
                    .hasMessage("Could not bind the second endpoint to 127.0.0.1:" + first.port());
        }
    }
}
