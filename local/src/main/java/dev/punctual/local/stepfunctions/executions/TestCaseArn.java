package dev.punctual.local.stepfunctions.executions;

/**
 * A StartExecution state machine ARN that may name a test case of the mock configuration after a
 * {@code #}, as AWS Step Functions Local reads it ({@code arn:…:stateMachine:LambdaSQSIntegration#HappyPath}:
 * the developer guide's <em>Using mocked service integrations for testing in Step Functions Local</em>,
 * step 3).
 *
 * @param stateMachineArn the ARN without the suffix
 * @param testCase the test case's name, or {@code null} when the ARN names none
 */
record TestCaseArn(String stateMachineArn, String testCase) {

    static TestCaseArn of(String arn) {
        int hash = arn == null ? -1 : arn.indexOf('#');
        if (hash < 0) {
            return new TestCaseArn(arn, null);
        }
        String testCase = arn.substring(hash + 1);
        if (testCase.isEmpty()) {
            throw new StepFunctionsException(ErrorCode.INVALID_ARN, "Invalid Arn: '" + arn + "': no test case name after '#'");
        }
        return new TestCaseArn(arn.substring(0, hash), testCase);
    }
}
