package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import dev.punctual.statemachine.StreamWiring;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.UUID;

/**
 * The Lambda context a locally invoked function sees: a fresh request ID per invocation, a function
 * name and ARN derived from the table, the memory the deployed function is given, a logger that writes
 * to this process's log, and the remaining
 * time of an invocation with the deployed function's timeout ({@link StreamWiring#FUNCTION_TIMEOUT}),
 * counted on the poller's clock. The timeout is not enforced: the handler budgets its backoff by it.
 */
public final class LocalLambdaContext implements Context {

    /** The account ID in local ARNs. */
    static final String ACCOUNT_ID = "000000000000";

    private static final System.Logger LOG = System.getLogger("dev.punctual.local.function");
    private static final LambdaLogger LOGGER = new LambdaLogger() {
        @Override
        public void log(String message) {
            LOG.log(System.Logger.Level.INFO, message);
        }

        @Override
        public void log(byte[] message) {
            log(new String(message, StandardCharsets.UTF_8));
        }
    };

    private final String requestId = UUID.randomUUID().toString();
    private final String functionName;
    private final String region;
    private final int memoryMb;
    private final Clock clock;
    private final long deadlineMillis;

    /**
     * An invocation of {@code functionName}, deployed with {@code memoryMb} (what Powertools logs as
     * {@code function_memory_size}), that begins now on {@code clock}.
     */
    public LocalLambdaContext(String functionName, int memoryMb, String region, Clock clock) {
        this.functionName = functionName;
        this.memoryMb = memoryMb;
        this.region = region;
        this.clock = clock;
        this.deadlineMillis = clock.millis() + StreamWiring.FUNCTION_TIMEOUT.toMillis();
    }

    static String functionName(String tableName) {
        return "punctual-expiry-" + tableName;
    }

    static String functionArn(String tableName, String region) {
        return "arn:aws:lambda:" + region + ":" + ACCOUNT_ID + ":function:" + functionName(tableName);
    }

    @Override
    public String getAwsRequestId() {
        return requestId;
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/" + functionName;
    }

    @Override
    public String getLogStreamName() {
        return "local";
    }

    @Override
    public String getFunctionName() {
        return functionName;
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:" + region + ":" + ACCOUNT_ID + ":function:" + functionName;
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
    public int getRemainingTimeInMillis() {
        return (int) Math.max(0, deadlineMillis - clock.millis());
    }

    @Override
    public int getMemoryLimitInMB() {
        return memoryMb;
    }

    @Override
    public LambdaLogger getLogger() {
        return LOGGER;
    }
}
