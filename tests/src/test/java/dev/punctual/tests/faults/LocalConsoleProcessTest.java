package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code punctual local} prints the console's address among its start-up lines, aligned with them,
 * and serves the console there from the jar.
 */
class LocalConsoleProcessTest {

    private static final Pattern CONSOLE = Pattern.compile("^Console {13}(http://127\\.0\\.0\\.1:\\d+/)$");

    @Test
    void local_printsTheConsoleAddress_andServesTheConsoleThere() throws Exception {
        try (PunctualProcess local = PunctualProcess.start(null)) {
            List<String> lines = local.output().lines().toList();
            Matcher console = lines.stream().map(CONSOLE::matcher).filter(Matcher::matches).findFirst()
                    .orElseThrow(() -> new AssertionError("no start-up line 'Console             http://127.0.0.1:<port>/' in "
                            + lines));
            assertThat(lines.indexOf(console.group(0))).as("printed before the runtime says it is ready")
                    .isLessThan(lines.size() - 1);

            URI uri = URI.create(console.group(1));
            HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("<title>Overview · Punctual console</title>", "/assets/uplot/uPlot.iife.min.js");
            HttpResponse<String> chart = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    uri.resolve("/assets/uplot/uPlot.iife.min.js")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(chart.statusCode()).as("the chart library, from its WebJar inside the jar").isEqualTo(200);
            assertThat(chart.body()).contains("uPlot");
        }
    }
}
