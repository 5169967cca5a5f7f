package dev.punctual.functions;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.Scheduler;
import dev.punctual.peritem.ItemScheduler;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.windowed.BucketScheduler;
import java.util.concurrent.Executor;

/**
 * Where this module registers each {@link ExpiryMode}: the {@link Scheduler} that plans and carries out
 * a table's decisions in that mode, built from a function's parts and settings (per item: whether it
 * stops stale executions). Everything else the functions do is the same in every mode and asks the
 * scheduler. A new mode adds its package (its scheduler, its plans if it has its own, and its outcomes)
 * and one case here, which builds the SDK adapters it needs.
 */
public final class FunctionModes {

    private FunctionModes() {
    }

    /**
     * The scheduler of {@code mode}, working with {@code parts}: their executions are those of the state
     * machine the mode starts ({@link ExpirySettings#stateMachineArn()}); a mode asks for the other parts
     * it needs (a DynamoDB client, the sleeper), so a function builds only what its mode uses. Whoever
     * must schedule items the way a table's mode does (the stream handler, a backfill) hands the
     * scheduler to a {@link dev.punctual.expiry.ChangeProcessor}.
     *
     * @param pool runs the scheduler's concurrent calls, where it makes any
     * @throws IllegalArgumentException naming the environment variable the mode needs and is not set
     */
    public static Scheduler<?> scheduler(ExpiryMode mode, FunctionParts parts, Executor pool) {
        return scheduler(mode, parts, parts.executions(), pool);
    }

    /**
     * As {@link #scheduler(ExpiryMode, FunctionParts, Executor)}, starting and describing through
     * {@code executions} instead of the parts' own: the backfill's, whose starts are paced per page.
     *
     * @param executions the executions of the settings' state machine, however they are reached
     */
    public static Scheduler<?> scheduler(ExpiryMode mode, FunctionParts parts, Executions executions, Executor pool) {
        return switch (mode) {
            case PER_ITEM -> new ItemScheduler(executions, parts.settings().cancelStale());
            case WINDOWED -> {
                String indexTable = parts.settings().scheduleTable();
                yield new BucketScheduler(new DynamoDbScheduleIndex(parts.dynamoDb(), indexTable),
                        new DynamoDbItemDeleter(parts.dynamoDb()), executions, parts.clock(), parts.sleeper(), pool);
            }
        };
    }
}
