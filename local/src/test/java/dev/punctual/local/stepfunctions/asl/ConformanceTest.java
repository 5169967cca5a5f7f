package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden fixtures under {@code conformance/<feature>/*.json}: a definition and input, run on a manual
 * clock, must produce the expected output or error (and, where given, wake up at the expected
 * instants and emit the expected events). Each fixture's {@code doc} names the AWS documentation or
 * spec section it follows.
 */
class ConformanceTest {

    static final Instant START = Instant.parse("2024-01-01T00:00:00Z");
    /** The keys of {@code expect} this test checks; a fixture with any other key fails. */
    static final Set<String> EXPECTATIONS = Set.of("output", "error", "status", "cause", "causeContains", "wakeUps",
            "events", "taskParameters", "finishedAt");

    static Stream<Arguments> fixtures() throws IOException, URISyntaxException {
        Path root = Path.of(ConformanceTest.class.getResource("/conformance").toURI());
        List<Arguments> fixtures = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> p.toString().endsWith(".json")).sorted().forEach(p -> fixtures.add(
                    Arguments.of(root.relativize(p).toString(), read(p))));
        }
        return fixtures.stream();
    }

    private static JsonNode read(Path path) {
        try {
            return Json.parse(Files.readString(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void fixture_whenRun_matchesExpectation(String name, JsonNode fixture) {
        runAndCheck(fixture);
    }

    @Test
    void fixture_withMisspeltExpectation_fails() {
        JsonNode fixture = Json.parse("""
                {"doc": "a fixture whose only expectation is misspelt",
                 "definition": {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": true}}},
                 "input": {"a": 1},
                 "expect": {"outptu": {"a": 2}}}""");
        assertThatThrownBy(() -> runAndCheck(fixture)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("outptu");
    }

    @Test
    void fixture_withoutExpectation_fails() {
        JsonNode fixture = Json.parse("""
                {"doc": "a fixture that expects nothing",
                 "definition": {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": true}}},
                 "expect": {}}""");
        assertThatThrownBy(() -> runAndCheck(fixture)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("states no expectation");
    }

    private static void runAndCheck(JsonNode fixture) {
        assertThat(fixture.path("doc").asText()).as("every fixture names its source").isNotBlank();
        JsonNode expect = fixture.path("expect");
        List<String> keys = new ArrayList<>();
        expect.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).as("the fixture states no expectation this test checks (one of %s)", EXPECTATIONS)
                .isNotEmpty();
        assertThat(keys).as("expectations this test understands").allMatch(EXPECTATIONS::contains);
        Instant start = fixture.has("now") ? Instant.parse(fixture.get("now").asText()) : START;
        ManualClockRun run = ManualClockRun.run(fixture.get("definition"),
                fixture.path("input").isMissingNode() ? Json.MAPPER.createObjectNode() : fixture.get("input"), start,
                fixture.get("tasks"));
        RecordingObserver observer = run.observer;
        CannedTaskResource tasks = run.tasks;
        List<Instant> wakeUps = run.wakeUps;

        RunOutcome outcome = observer.outcome.get();
        assertThat(outcome).as("the execution completed").isNotNull();
        assertThat(observer.completions).hasSize(1);
        if (expect.has("output")) {
            assertThat(outcome.error()).as("error (cause: %s)", outcome.cause()).isNull();
            assertThat(normalize(outcome.output())).isEqualTo(normalize(expect.get("output")));
        }
        if (expect.has("error")) {
            assertThat(outcome.status()).isNotEqualTo(RunOutcome.Status.SUCCEEDED);
            assertThat(outcome.error()).as("error (cause: %s)", outcome.cause()).isEqualTo(expect.get("error").asText());
        }
        if (expect.has("status")) {
            assertThat(outcome.status().name()).isEqualTo(expect.get("status").asText());
        }
        if (expect.has("cause")) {
            assertThat(outcome.cause()).isEqualTo(expect.get("cause").asText());
        }
        if (expect.has("causeContains")) {
            assertThat(outcome.cause()).contains(expect.get("causeContains").asText());
        }
        if (expect.has("wakeUps")) {
            List<Instant> expected = new ArrayList<>();
            expect.get("wakeUps").forEach(w -> expected.add(Instant.parse(w.asText())));
            assertThat(wakeUps).isEqualTo(expected);
        }
        if (expect.has("events")) {
            List<String> expected = new ArrayList<>();
            expect.get("events").forEach(e -> expected.add(e.asText()));
            assertThat(observer.eventTypes()).isEqualTo(expected);
        }
        if (expect.has("taskParameters")) {
            assertThat(tasks.parameters.stream().map(ConformanceTest::normalize).toList())
                    .isEqualTo(toList(normalize(expect.get("taskParameters"))));
        }
        if (expect.has("finishedAt")) {
            assertThat(run.finishedAt()).isEqualTo(Instant.parse(expect.get("finishedAt").asText()));
        }
    }

    private static List<JsonNode> toList(JsonNode array) {
        List<JsonNode> list = new ArrayList<>();
        array.forEach(list::add);
        return list;
    }

    static JsonNode normalize(JsonNode node) {
        return node == null ? null : Json.parse(Json.write(node));
    }
}
