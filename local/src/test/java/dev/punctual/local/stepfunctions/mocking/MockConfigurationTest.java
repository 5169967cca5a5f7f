package dev.punctual.local.stepfunctions.mocking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import org.junit.jupiter.api.Test;

/** Reading AWS Step Functions Local's mock configuration file, and counting a test case's invocations. */
class MockConfigurationTest {

    /** The shape of the developer guide's example: a Lambda state failing three times, then answering. */
    private static final String CONFIG = """
            {"StateMachines":{"LambdaSQSIntegration":{"TestCases":{
                "RetryPath":{"LambdaState":"MockedLambdaRetry"},
                "HybridPath":{"LambdaState":"MockedLambdaSuccess"}}}},
             "MockedResponses":{
                "MockedLambdaSuccess":{"0":{"Return":{"StatusCode":200,"Payload":{"body":"hi"}}}},
                "MockedLambdaRetry":{
                   "0":{"Throw":{"Error":"Lambda.ResourceNotReadyException","Cause":"not ready"}},
                   "1-2":{"Throw":{"Error":"Lambda.TimeoutException","Cause":"timed out"}},
                   "3":{"Return":{"StatusCode":200,"Payload":{"body":"at last"}}}}}}""";

    @Test
    void forExecution_whenRangesGiven_answersEachInvocationInOrderThenFails() {
        TaskMocks mocks = MockConfiguration.parse(CONFIG).testCase("LambdaSQSIntegration", "RetryPath").orElseThrow()
                .forExecution();

        assertThat(mocks.nextInvocation("LambdaState")).contains(
                new TaskMocks.Thrown("Lambda.ResourceNotReadyException", "not ready"));
        assertThat(mocks.nextInvocation("LambdaState")).contains(new TaskMocks.Thrown("Lambda.TimeoutException", "timed out"));
        assertThat(mocks.nextInvocation("LambdaState")).contains(new TaskMocks.Thrown("Lambda.TimeoutException", "timed out"));
        assertThat(mocks.nextInvocation("LambdaState")).hasValueSatisfying(answer ->
                assertThat(((TaskMocks.Returned) answer).result().at("/Payload/body").asText()).isEqualTo("at last"));
        assertThatThrownBy(() -> mocks.nextInvocation("LambdaState")).isInstanceOf(StatesRuntimeError.class)
                .hasMessageContaining("invocation 4 has none");
        assertThat(mocks.nextInvocation("SQSState")).as("a state the test case leaves out calls its service").isEmpty();
    }

    @Test
    void forExecution_eachExecution_countsFromZero() {
        MockTestCase testCase = MockConfiguration.parse(CONFIG).testCase("LambdaSQSIntegration", "HybridPath").orElseThrow();

        assertThat(testCase.forExecution().nextInvocation("LambdaState")).isPresent();
        assertThat(testCase.forExecution().nextInvocation("LambdaState")).isPresent();
    }

    @Test
    void testCase_unknownNames_areEmpty() {
        MockConfiguration configuration = MockConfiguration.parse(CONFIG);

        assertThat(configuration.testCase("LambdaSQSIntegration", "SadPath")).isEmpty();
        assertThat(configuration.testCase("Other", "RetryPath")).isEmpty();
    }

    @Test
    void parse_whenMalformed_namesTheFieldAndWhy() {
        assertThatThrownBy(() -> MockConfiguration.parse("{\"StateMachines\":{}}"))
                .hasMessageContaining("'MockedResponses'");
        assertThatThrownBy(() -> MockConfiguration.parse("""
                {"StateMachines":{"M":{"TestCases":{"T":{"S":"Nope"}}}},"MockedResponses":{}}"""))
                .hasMessageContaining("StateMachines.M.TestCases.T.S").hasMessageContaining("'Nope'");
        assertThatThrownBy(() -> MockConfiguration.parse("""
                {"StateMachines":{},"MockedResponses":{"R":{"0":{"Return":1},"2":{"Return":2}}}}"""))
                .hasMessageContaining("MockedResponses.R has no response for invocation 1");
        assertThatThrownBy(() -> MockConfiguration.parse("""
                {"StateMachines":{},"MockedResponses":{"R":{"0-1":{"Return":1},"1":{"Return":2}}}}"""))
                .hasMessageContaining("invocation 1 twice");
        assertThatThrownBy(() -> MockConfiguration.parse("""
                {"StateMachines":{},"MockedResponses":{"R":{"2-1":{"Return":1}}}}"""))
                .hasMessageContaining("MockedResponses.R.2-1");
        assertThatThrownBy(() -> MockConfiguration.parse("""
                {"StateMachines":{},"MockedResponses":{"R":{"0":{"Return":1,"Throw":{"Error":"E","Cause":"C"}}}}}"""))
                .hasMessageContaining("exactly one field, Return or Throw");
        assertThatThrownBy(() -> MockConfiguration.parse("""
                {"StateMachines":{},"MockedResponses":{"R":{"0":{"Throw":{"Error":"E"}}}}}"""))
                .hasMessageContaining("MockedResponses.R.0.Throw");
    }
}
