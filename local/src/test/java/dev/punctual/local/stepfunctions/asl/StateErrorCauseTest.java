package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.asl.errors.StatesNoChoiceMatchedError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The causes of the errors a state raises about its own execution, worded as AWS words them: "An error
 * occurred while executing the state 'NAME' (entered at the event id #N). " and what went wrong, where N
 * is the id of the state's entered event in the history (ExecutionStarted is #1), nested states included.
 * The details quoted are AWS's, from LocalStack's recordings ({@code aws-recordings}, which replays them
 * whole); the golden fixtures check these errors' names.
 */
class StateErrorCauseTest {

    private static final Instant START = Instant.parse("2024-01-01T00:00:00Z");

    @Test
    void choice_whenNoRuleMatchesAndNoDefault_causeNamesTheStateAndItsEnteredEvent() {
        RunOutcome outcome = run("{\"StartAt\":\"Pick\",\"States\":{\"Pick\":{\"Type\":\"Choice\",\"Choices\":["
                + "{\"Variable\":\"$.n\",\"NumericEquals\":1,\"Next\":\"Done\"}]},"
                + "\"Done\":{\"Type\":\"Succeed\"}}}", "{\"n\":2}");

        assertThat(outcome.error()).isEqualTo(StatesNoChoiceMatchedError.NAME);
        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'Pick' (entered at the"
                + " event id #2). No choice rule matched and there is no Default.");
    }

    @Test
    void wait_whenSecondsPathIsNegative_saysSoWithThePathAndItsValue() {
        RunOutcome outcome = run(waitSecondsPath(), "{\"s\":-1}");

        assertThat(outcome.error()).isEqualTo(StatesRuntimeError.NAME);
        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'Nap' (entered at the"
                + " event id #2). The SecondsPath parameter references a negative value: $.s == -1");
    }

    @Test
    void wait_whenSecondsPathIsNotWhole_saysItCannotBeParsedAsALong() {
        assertThat(run(waitSecondsPath(), "{\"s\":1.5}").cause()).endsWith(
                "The SecondsPath parameter cannot be parsed as a long value: $.s == 1.5");
        assertThat(run(waitSecondsPath(), "{\"s\":-1.5}").cause()).endsWith(
                "The SecondsPath parameter cannot be parsed as a long value: $.s == -1.5");
    }

    @Test
    void wait_whenSecondsPathSelectsNothing_saysItReferencesNoInputValue() {
        assertThat(run(waitSecondsPath(), "{}").cause()).endsWith(
                "The SecondsPath parameter does not reference an input value: $.s");
    }

    @Test
    void wait_whenTimestampPathIsNotIso8601_quotesThePathAndTheRawText() {
        RunOutcome outcome = run("{\"StartAt\":\"WaitUntil\",\"States\":{\"WaitUntil\":{\"Type\":\"Wait\","
                + "\"TimestampPath\":\"$.TimestampValue\",\"End\":true}}}", "{\"TimestampValue\":\"2016-12-05 21:29:29Z\"}");

        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'WaitUntil' (entered at"
                + " the event id #2). The TimestampPath parameter does not reference a valid ISO-8601 extended offset"
                + " date-time format string: $.TimestampValue == 2016-12-05 21:29:29Z");
    }

    @Test
    void wait_untilATimestampMoreThan2To31SecondsAhead_isTooLong_oneDayLessIsNot() {
        String definition = "{\"StartAt\":\"W\",\"States\":{\"W\":{\"Type\":\"Wait\",\"TimestampPath\":\"$.at\","
                + "\"End\":true}}}";
        // AWS: 24,856 days ahead "Wait state delay is too long."; 24,855 days ahead waits.
        RunOutcome tooFar = run(definition, "{\"at\":\"" + START.plus(java.time.Duration.ofDays(24_856)) + "\"}");
        assertThat(tooFar.cause()).isEqualTo("An error occurred while executing the state 'W' (entered at the event"
                + " id #2). Wait state delay is too long.");

        ManualClockRun farButFine = ManualClockRun.run(Json.parse(definition),
                Json.parse("{\"at\":\"" + START.plus(java.time.Duration.ofDays(24_855)) + "\"}"), START, null);
        assertThat(farButFine.outcome().status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(farButFine.finishedAt()).isEqualTo(START.plus(java.time.Duration.ofDays(24_855)));
    }

    @Test
    void inputPath_whenItSelectsNothing_quotesJaywaysNoResults() {
        RunOutcome outcome = run("{\"StartAt\":\"pass\",\"States\":{\"pass\":{\"Type\":\"Pass\","
                + "\"InputPath\":\"$.NoSuchInputPath\",\"End\":true}}}", "{\"int-literal\":0}");

        assertThat(outcome.error()).isEqualTo(StatesRuntimeError.NAME);
        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'pass' (entered at the"
                + " event id #2). Invalid path '$.NoSuchInputPath' : No results for path: $['NoSuchInputPath']");
    }

    @Test
    void outputPath_whenAStepOnTheWayIsMissing_quotesJaywaysMissingProperty() {
        RunOutcome outcome = run("{\"StartAt\":\"P\",\"States\":{\"P\":{\"Type\":\"Pass\","
                + "\"OutputPath\":\"$.no.such.result.path\",\"End\":true}}}", "{}");

        assertThat(outcome.cause()).endsWith("Invalid path '$.no.such.result.path' : Missing property in path $['no']");
    }

    @Test
    void parameters_whenAPathSelectsNothing_namesTheFieldAndQuotesTheInput() {
        RunOutcome outcome = run("{\"StartAt\":\"pass\",\"States\":{\"pass\":{\"Type\":\"Pass\","
                + "\"Parameters\":{\"value.$\":\"$.no_such_jsonpath\"},\"End\":true}}}", "{\"int-literal\":0}");

        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'pass' (entered at the"
                + " event id #2). The JSONPath '$.no_such_jsonpath' specified for the field 'value.$' could not be"
                + " found in the input '{\"int-literal\":0}'");
    }

    @Test
    void fail_whenErrorPathSelectsNothing_namesTheFieldAsWritten() {
        RunOutcome outcome = run("{\"StartAt\":\"pass\",\"States\":{\"pass\":{\"Type\":\"Pass\",\"Result\":"
                + "{\"Error\":\"error-value\"},\"Next\":\"fail\"},\"fail\":{\"Type\":\"Fail\",\"ErrorPath\":\"$.ErrorX\","
                + "\"Cause\":\"c\"}}}", "{}");

        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'fail' (entered at the"
                + " event id #4). The JSONPath '$.ErrorX' specified for the field 'ErrorPath' could not be found in the"
                + " input '{\"Error\":\"error-value\"}'");
    }

    @Test
    void map_whenItsItemsAreNoArray_saysTheReferencePathMustPointToOne() {
        RunOutcome outcome = run("{\"StartAt\":\"M\",\"States\":{\"M\":{\"Type\":\"Map\",\"ItemsPath\":\"$.items\","
                + "\"ItemProcessor\":{\"StartAt\":\"I\",\"States\":{\"I\":{\"Type\":\"Pass\",\"End\":true}}},"
                + "\"End\":true}}}", "{\"items\":1}");

        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'M' (entered at the"
                + " event id #2). Reference path \"$.items\" must point to array.");
    }

    @Test
    void nestedState_isNamedWithItsOwnEnteredEvent_countedAcrossTheWholeHistory() {
        // ExecutionStarted #1, ParallelStateEntered #2, ParallelStateStarted #3, PassStateEntered #4
        RunOutcome outcome = run("{\"StartAt\":\"P\",\"States\":{\"P\":{\"Type\":\"Parallel\",\"End\":true,"
                + "\"Branches\":[{\"StartAt\":\"Fast\",\"States\":{\"Fast\":{\"Type\":\"Pass\",\"Parameters\":"
                + "{\"m.$\":\"$.nope\"},\"End\":true}}}]}}}", "{\"x\":\"a\"}");

        assertThat(outcome.cause()).isEqualTo("An error occurred while executing the state 'Fast' (entered at the"
                + " event id #4). The JSONPath '$.nope' specified for the field 'm.$' could not be found in the"
                + " input '{\"x\":\"a\"}'");
    }

    @Test
    void caughtError_carriesTheWordedCauseIntoTheCatchersOutput() {
        // ExecutionStarted #1, ParallelStateEntered #2, ParallelStateStarted #3, ChoiceStateEntered #4
        ManualClockRun run = ManualClockRun.run(Json.parse("{\"StartAt\":\"P\",\"States\":{\"P\":{\"Type\":"
                + "\"Parallel\",\"End\":true,\"ResultPath\":\"$.r\",\"Catch\":[{\"ErrorEquals\":[\"States.ALL\"],"
                + "\"ResultPath\":\"$.err\",\"Next\":\"Done\"}],\"Branches\":[{\"StartAt\":\"Pick\",\"States\":"
                + "{\"Pick\":{\"Type\":\"Choice\",\"Choices\":[{\"Variable\":\"$.n\",\"NumericEquals\":1,"
                + "\"Next\":\"One\"}]},\"One\":{\"Type\":\"Succeed\"}}}]},\"Done\":{\"Type\":\"Succeed\"}}}"),
                Json.parse("{\"n\":2}"), START, null);

        assertThat(run.outcome().status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(run.outcome().output().path("err").path("Cause").asText()).isEqualTo("An error occurred while"
                + " executing the state 'Pick' (entered at the event id #4). No choice rule matched and there is no"
                + " Default.");
    }

    private static String waitSecondsPath() {
        return "{\"StartAt\":\"Nap\",\"States\":{\"Nap\":{\"Type\":\"Wait\",\"SecondsPath\":\"$.s\",\"End\":true}}}";
    }

    private static RunOutcome run(String definition, String input) {
        RunOutcome outcome = ManualClockRun.run(Json.parse(definition), Json.parse(input), START, null).outcome();
        assertThat(outcome).as("the run ended").isNotNull();
        return outcome;
    }
}
