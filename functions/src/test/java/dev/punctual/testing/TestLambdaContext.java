package dev.punctual.testing;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import dev.punctual.statemachine.StreamWiring;
import java.time.Duration;

/**
 * The Lambda context tests hand a function: a fixed request and function name, and an invocation with
 * {@code remaining} time left, which is what the stream handler's backoff budgets from. Shared by the
 * functions module's tests and the end-to-end tests (this module's test jar).
 */
public final class TestLambdaContext implements Context {

    private final Duration remaining;

    private TestLambdaContext(Duration remaining) {
        this.remaining = remaining;
    }

    /** An invocation that has just begun: the deployed function's whole timeout is left. */
    public static TestLambdaContext invocation() {
        return remaining(StreamWiring.FUNCTION_TIMEOUT);
    }

    /** An invocation with {@code remaining} left before Lambda's timeout. */
    public static TestLambdaContext remaining(Duration remaining) {
        return new TestLambdaContext(remaining);
    }

    @Override
    public int getRemainingTimeInMillis() {
        return (int) remaining.toMillis();
    }

    @Override
    public String getAwsRequestId() {
        return "test-request";
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/punctual-expiry-test";
    }

    @Override
    public String getLogStreamName() {
        return "test";
    }

    @Override
    public String getFunctionName() {
        return "punctual-expiry-test";
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:us-east-1:123456789012:function:punctual-expiry-test";
    }

    @Override
    public CognitoIdentity getIdentity() {
        return null;
    }

    @Override
    public ClientContext getClientContext() {
        return null;
    }

    @Override
    public int getMemoryLimitInMB() {
        return 1024;
    }

    @Override
    public LambdaLogger getLogger() {
        return null;
    }
}
