package dev.punctual.functions;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryScheduler;
import dev.punctual.expiry.Scheduler;
import dev.punctual.expiry.Sleeper;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.windowed.BucketScheduler;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where this module registers each {@link ExpiryMode}: the {@link Scheduler} that carries out a
 * table's decisions in that mode, built from a function's parts. Everything else the functions do is
 * the same in every mode and asks the scheduler. A new mode adds its package (its scheduler and
 * outcomes) and one case here, which builds the SDK adapters it needs.
 */
public final class FunctionModes {

    private FunctionModes() {
    }

    /**
     * The scheduler of {@code mode}.
     *
     * @param executions the executions of the state machine the mode starts ({@link ExpirySettings#stateMachineArn()})
     * @param dynamoDb asked only by a mode that calls DynamoDB itself
     * @param pool runs the scheduler's concurrent calls, where it makes any
     * @throws IllegalArgumentException naming the environment variable a mode needs and is not set
     */
    public static Scheduler scheduler(ExpiryMode mode, ExpirySettings settings, Executions executions,
            Supplier<DynamoDbClient> dynamoDb, Clock clock, Sleeper sleeper, Executor pool) {
        return switch (mode) {
            case PER_ITEM -> new ExpiryScheduler(executions);
            case WINDOWED -> {
                String indexTable = settings.scheduleTable();
                yield new BucketScheduler(new DynamoDbScheduleIndex(dynamoDb.get(), indexTable),
                        new DynamoDbItemDeleter(dynamoDb.get()), executions, clock, sleeper, pool);
            }
        };
    }
}
