package dev.punctual.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.console.ConsoleServer;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.DeadLetter;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.RuntimeProgress;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The console's HTTP edge, with requests written byte for byte (the JDK's client will not send a
 * foreign {@code Host}): redrive refuses a cross-origin POST and a request whose {@code Host} is not
 * the loopback address (DNS rebinding), and runs when its own page asks; a bad path or id is a 404
 * page and the console keeps serving; {@code /api/executions} offers the machines per-item mode runs and
 * refuses windowed mode's. The dead letter is real: at an open-execution quota of 1, the
 * second item's StartExecution fails until the mapping gives its batch up. The refusals run first and
 * check the dead letter is still there to redrive.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleHttpTest {

    private static ConsoleRuntime started;
    private static LocalRuntime runtime;
    private static ConsoleServer console;
    private static ExpiryTable table;
    private static String letter;
    private static long secondTtl;

    @BeforeAll
    static void start() {
        MappingSettings mapping = MappingSettings.builder().maximumRetryAttempts(1).retryDelay(Duration.ofMillis(100)).build();
        started = ConsoleRuntime.start(LocalRuntime.Options.onFreePorts().withMapping(mapping).withMaxOpenExecutions(1));
        runtime = started.runtime();
        console = started.console();
        table = ExpiryTable.create(runtime, "console-http");
        table.putWithTtl("first", Instant.now().getEpochSecond() + 3);
        Await.untilProgressing("the first item's execution to run", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                () -> runtime.stepFunctionsEngine().openExecutions() == 1);
        secondTtl = Instant.now().getEpochSecond() + 600;
        table.putWithTtl("second", secondTtl);
        letter = Await.valueWhileProgressing("the second item's batch to be dead-lettered", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                () -> runtime.streamPoller().deadLetters().list().stream().findFirst().map(DeadLetter::id));
    }

    @AfterAll
    static void stop() {
        ConsoleRuntime.closeIfStarted(started);
    }

    @Test
    @Order(1)
    void redrive_fromAnotherOrigin_isRefused() throws IOException {
        Response response = request("POST", redrivePath(), Map.of("Host", host(), "Origin", "http://evil.example"));
        assertThat(response.status()).isEqualTo(403);
        assertThat(response.body()).contains("Cross-origin request refused");
        assertThat(runtime.streamPoller().deadLetters().find(letter).orElseThrow().redriven()).isEmpty();
    }

    @Test
    @Order(2)
    void redrive_withAForeignHost_isRefused() throws IOException {
        // DNS rebinding: evil.example resolves to 127.0.0.1, so the page is same-origin with itself.
        Response response = request("POST", redrivePath(), Map.of("Host", "evil.example:" + console.port(),
                "Origin", "http://evil.example:" + console.port()));
        assertThat(response.status()).isEqualTo(421);
        assertThat(runtime.streamPoller().deadLetters().find(letter).orElseThrow().redriven()).isEmpty();
        assertThat(request("GET", "/api/pending", Map.of("Host", "evil.example:" + console.port())).status())
                .as("reads are refused too: keys are user data").isEqualTo(421);
    }

    @Test
    @Order(4)
    void redrive_fromTheConsolesOwnPage_handsTheBatchToTheHandlerAgain() throws IOException {
        Await.untilProgressing("the first item to expire, freeing the only open execution", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                () -> runtime.stepFunctionsEngine().openExecutions() == 0);
        Response response = request("POST", redrivePath(), Map.of("Host", host(), "Origin", "http://" + host()));
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.body()).contains("\"succeeded\":true");
        assertThat(runtime.streamPoller().deadLetters().find(letter).orElseThrow().redriven()).isPresent();
        assertThat(runtime.stepFunctionsEngine().openExecutions()).as("the second item is pending now").isEqualTo(1);
    }


    @Test
    @Order(5)
    void pendingCommand_readsTheConsolesApi() {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int exit = dev.punctual.local.cli.PunctualCommand.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
                "pending", "--console", console.uri().toString(), "--table", table.name());
        assertThat(exit).as("stderr: %s", err).isZero();
        assertThat(out.toString()).contains(table.name(), Long.toString(secondTtl), "1 pending expiration(s)");
    }

    @Test
    @Order(3)
    void badPathsAndIds_areNotFound_andTheConsoleKeepsServing() throws IOException {
        Response page = request("GET", "/no-such-page", Map.of("Host", host()));
        assertThat(page.status()).isEqualTo(404);
        assertThat(page.headers()).containsEntry("content-type", "text/html; charset=utf-8");
        assertThat(page.body()).contains("<title>Not found");
        assertThat(request("GET", "/executions/arn:aws:states:us-east-1:123456789012:execution:punctual-expire-item:nope",
                Map.of("Host", host())).status()).isEqualTo(404);
        assertThat(request("GET", "/executions/%ZZ", Map.of("Host", host())).status()).isIn(400, 404);
        assertThat(request("POST", "/api/dead-letters/no-such-id/redrive", Map.of("Host", host())).status()).isEqualTo(404);
        Response badLimit = request("GET", "/api/pending?limit=lots", Map.of("Host", host()));
        assertThat(badLimit.status()).isEqualTo(400);
        assertThat(badLimit.body()).contains("limit must be 1-500");
        assertThat(request("GET", "/", Map.of("Host", host())).status()).isEqualTo(200);
        assertThat(request("GET", "/api/overview", Map.of("Host", "localhost:" + console.port())).status()).isEqualTo(200);
    }

    @Test
    @Order(6)
    void executions_offerTheMachinesOfThisMode_only() throws IOException {
        Response executions = request("GET", "/api/executions", Map.of("Host", host()));
        assertThat(executions.status()).isEqualTo(200);
        assertThat(executions.body()).as("per item, the one machine to list").contains("\"stateMachines\":[\""
                + LocalDefaults.stateMachineArn() + "\"]");
        Response bucketMachine = request("GET", "/api/executions?stateMachine=" + LocalDefaults.bucketStateMachineArn(),
                Map.of("Host", host()));
        assertThat(bucketMachine.status()).as("per item, no expire-bucket machine runs").isEqualTo(400);
        assertThat(bucketMachine.body()).contains("one of Punctual's state machines: " + LocalDefaults.stateMachineArn() + "\"");
    }

    private static String redrivePath() {
        return "/api/dead-letters/" + letter + "/redrive";
    }

    private static String host() {
        return "127.0.0.1:" + console.port();
    }

    private record Response(int status, Map<String, String> headers, String body) {
    }

    private static Response request(String method, String path, Map<String, String> headers) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", console.port())) {
            socket.setSoTimeout(10_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
            headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
            request.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String raw = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int headerEnd = raw.indexOf("\r\n\r\n");
            String[] lines = raw.substring(0, headerEnd).split("\r\n");
            Map<String, String> responseHeaders = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                responseHeaders.put(lines[i].substring(0, colon).trim().toLowerCase(), lines[i].substring(colon + 1).trim());
            }
            return new Response(Integer.parseInt(lines[0].split(" ")[1]), responseHeaders, raw.substring(headerEnd + 4));
        }
    }
}
