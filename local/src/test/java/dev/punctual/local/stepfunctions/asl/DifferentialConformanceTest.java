package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import java.io.IOException;
import java.net.URISyntaxException;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every golden fixture ({@link ConformanceTest}) also runs on aws-local-stepfunctions, an ASL
 * interpreter written independently of ours, and the two must agree on status, output, error, cause
 * and the instant the run ended. Where they do not, the fixture records why under {@code differential}:
 * <ul>
 *   <li>{@code divergence} with {@code awsDoc}: the AWS documentation section that says the other
 *       interpreter is wrong; the test then checks that they still disagree, so a record never
 *       outlives the disagreement;</li>
 *   <li>{@code random}: the result is random by definition (UUID, MathRandom, full jitter), so only
 *       the status is compared.</li>
 * </ul>
 * Skipped, with a message, only when Node.js is not installed.
 */
class DifferentialConformanceTest {

    static Stream<Arguments> fixtures() throws IOException, URISyntaxException {
        return ConformanceTest.fixtures();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void fixture_onBothInterpreters_agreesOrRecordsWhy(String name, JsonNode fixture) {
        Optional<AwsLocalStepFunctions> other = AwsLocalStepFunctions.shared();
        assumeTrue(other.isPresent(), AwsLocalStepFunctions::whyUnavailable);
        Instant start = fixture.has("now") ? Instant.parse(fixture.get("now").asText()) : ConformanceTest.START;
        JsonNode input = fixture.path("input").isMissingNode() ? Json.MAPPER.createObjectNode() : fixture.get("input");

        Differential run = Differential.run(other.get(), fixture.get("definition"), input, start, fixture.get("tasks"));

        JsonNode record = fixture.path("differential");
        if (record.has("divergence")) {
            assertThat(record.path("awsDoc").asText()).as("a divergence cites the AWS documentation")
                    .startsWith("https://docs.aws.amazon.com/");
            assertThat(run.disagreements()).as("recorded divergence (%s) still holds; ours %s, theirs %s",
                    record.get("divergence").asText(), Differential.brief(run.ours()), Differential.brief(run.theirs()))
                    .isNotEmpty();
        } else if (record.has("random")) {
            assertThat(run.theirs().path("status").asText()).as("theirs: %s", Differential.brief(run.theirs()))
                    .isEqualTo(run.ours().path("status").asText());
        } else {
            assertThat(run.disagreements()).as("ours %s%ntheirs %s", Differential.brief(run.ours()), Differential.brief(run.theirs())).isEmpty();
        }
    }
}
