package dev.punctual.local.faults;

import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.time.Timer;
import java.time.Duration;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The faults one local runtime injects ({@code --dynamodb-fault}, {@code --lambda-fault}) and the
 * decorators that inject them where Punctual calls: a {@link FaultyDynamoDb} for each caller's
 * DynamoDB client (the stream handler, the bucket function, the state machines' DynamoDB tasks), and
 * a {@link FaultyLambda} around the bucket function's invocations (by its state machine, and by the
 * EventBridge rule that heals buckets). Every injected fault is counted per call site.
 */
public final class RuntimeFaults {

    private final FaultCounts counts = new FaultCounts();
    private final Faults dynamoDb = Faults.dynamoDb(counts);
    private final Faults lambda = Faults.lambda(counts);
    private final Timer timer;

    /** @param timer when a function that timed out reports it */
    public RuntimeFaults(Timer timer) {
        this.timer = java.util.Objects.requireNonNull(timer, "timer");
    }

    /** DynamoDB faults, for every caller. */
    public Faults dynamoDb() {
        return dynamoDb;
    }

    /** Lambda invocation faults, for every invocation of the bucket function. */
    public Faults lambda() {
        return lambda;
    }

    /** What was injected, per call site. */
    public FaultCounts counts() {
        return counts;
    }

    /** {@code delegate}, failing as the DynamoDB faults say, with call sites named after {@code caller}. */
    public DynamoDbClient dynamoDbFor(String caller, DynamoDbClient delegate) {
        return new FaultyDynamoDb(delegate, dynamoDb, caller);
    }

    /**
     * A state machine's Lambda tasks, failing as the Lambda faults say; a timed-out invocation fails
     * {@code functionTimeout} after it began.
     */
    public TaskResource lambdaTasks(TaskResource delegate, String caller, Duration functionTimeout) {
        return new FaultyLambda(lambda, timer, functionTimeout).around(delegate, caller);
    }

    /** A function invoked asynchronously (a rule's target), failing as the Lambda faults say. */
    public <T, R> Function<T, R> lambdaTarget(String caller, Function<T, R> target, Duration functionTimeout) {
        return new FaultyLambda(lambda, timer, functionTimeout).around(caller, target);
    }
}
