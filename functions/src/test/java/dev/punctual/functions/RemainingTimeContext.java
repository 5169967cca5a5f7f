package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.time.Duration;

/** A Lambda context whose invocation has {@code remaining} left: what the handler's backoff budgets from. */
final class RemainingTimeContext implements Context {

    private final Duration remaining;

    RemainingTimeContext(Duration remaining) {
        this.remaining = remaining;
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
