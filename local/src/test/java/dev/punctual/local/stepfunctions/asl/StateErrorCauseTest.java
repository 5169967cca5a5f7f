package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.asl.errors.StatesNoChoiceMatchedError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The causes of the errors a state raises itself start as Step Functions words them, "An error
 * occurred while executing the state 'NAME'. ", from one helper whichever state raises them. The
 * golden fixtures check these errors' names; this checks their wording.
 */
class StateErrorCauseTest {

    private static final Instant START = Instant.parse("2024-01-01T00:00:00Z");

    @Test
    void choice_whenNoRuleMatchesAndNoDefault_causeNamesTheState() {
        RunOutcome outcome = run("{\"StartAt\":\"Pick\",\"States\":{\"Pick\":{\"Type\":\"Choice\",\"Choices\":["
                + "{\"Variable\":\"$.n\",\"NumericEquals\":1,\"Next\":\"Done\"}]},"
                + "\"Done\":{\"Type\":\"Succeed\"}}}", "{\"n\":2}");

        assertThat(outcome.error()).isEqualTo(StatesNoChoiceMatchedError.NAME);
        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'Pick'. No choice rule"
                + " matched and there is no Default.");
    }

    @Test
    void wait_whenSecondsPathIsNegative_causeNamesTheState() {
        RunOutcome outcome = run("{\"StartAt\":\"Nap\",\"States\":{\"Nap\":{\"Type\":\"Wait\","
                + "\"SecondsPath\":\"$.s\",\"End\":true}}}", "{\"s\":-1}");

        assertThat(outcome.error()).isEqualTo(StatesRuntimeError.NAME);
        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'Nap'. The SecondsPath"
                + " parameter does not reference a valid non-negative integer value: -1");
    }

    @Test
    void inputPath_whenItSelectsNothing_causeNamesTheStateAndThePath() {
        RunOutcome outcome = run("{\"StartAt\":\"P\",\"States\":{\"P\":{\"Type\":\"Pass\","
                + "\"InputPath\":\"$.missing\",\"End\":true}}}", "{\"a\":1}");

        assertThat(outcome.error()).isEqualTo(StatesRuntimeError.NAME);
        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'P'. Invalid path"
                + " '$.missing' in InputPath: No results for path: $.missing in input {\"a\":1}");
    }

    private static RunOutcome run(String definition, String input) {
        RunOutcome outcome = ManualClockRun.run(Json.parse(definition), Json.parse(input), START, null).outcome();
        assertThat(outcome).as("the run ended").isNotNull();
        return outcome;
    }
}
