package dev.punctual.local.runtime;

import dev.punctual.local.billing.CostMeter;
import dev.punctual.local.events.EventRules;
import dev.punctual.local.faults.RuntimeFaults;
import dev.punctual.local.metrics.RetainedMetrics;
import dev.punctual.local.time.TimerSleeper;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What the runtime runs its Lambda functions on, in place of what Lambda and AWS would give them.
 *
 * @param dynamoDb Punctual's own DynamoDB client: in-process, metered for the cost report
 * @param clock the runtime's clock
 * @param sleeper waits on the runtime's timer
 * @param metrics where the functions' CloudWatch metrics go
 * @param costMeter bills each invocation as Lambda would
 * @param stepFunctions the engine the functions start executions on
 * @param faults the faults the runtime injects into the functions' calls and invocations
 * @param eventRules the runtime's EventBridge rules, whose targets are in-process functions
 */
record FunctionHost(DynamoDbClient dynamoDb, Clock clock, TimerSleeper sleeper, RetainedMetrics metrics,
                    CostMeter costMeter, LocalStepFunctions stepFunctions, RuntimeFaults faults, EventRules eventRules) {

    /** Punctual's DynamoDB client as {@code caller} gets it: failing as {@code --dynamodb-fault} says, at call sites named after it. */
    DynamoDbClient dynamoDbFor(String caller) {
        return faults.dynamoDbFor(caller, dynamoDb);
    }

    /** Runs one invocation of a function with {@code memoryMb} and bills its wall time, as Lambda bills its duration. */
    <T> T invoke(int memoryMb, Supplier<T> invocation) {
        long started = System.nanoTime();
        try {
            return invocation.get();
        } finally {
            costMeter.invocation(memoryMb, Duration.ofNanos(System.nanoTime() - started));
        }
    }
}
