package dev.punctual.local.runtime;

import dev.punctual.local.billing.CostMeter;
import dev.punctual.local.billing.DeletionLedger;
import dev.punctual.local.billing.HandlerCalls;
import dev.punctual.local.events.EventRules;
import dev.punctual.local.events.EventStore;
import dev.punctual.local.metrics.RetainedMetrics;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import java.time.Duration;

/**
 * What a {@link LocalRuntime} saw of Punctual's work, counted or kept since it started: what a trial
 * measures, the console shows and a test asserts on, and what AWS would show as a bill, CloudWatch
 * metrics and EventBridge events. Running the runtime needs none of it. The batches the stream mapping
 * gave up on are its own: {@code streamPoller().deadLetters()}.
 */
public final class Observations {

    private final CostMeter costMeter;
    private final LocalStepFunctions stepFunctions;
    private final DeletionLedger deletions;
    private final RetainedMetrics metrics;
    private final HandlerCalls handlerCalls;
    private final EventStore events;
    private final EventRules eventRules;
    private final Duration dynamoDbStartTime;

    Observations(CostMeter costMeter, LocalStepFunctions stepFunctions, DeletionLedger deletions, RetainedMetrics metrics,
            HandlerCalls handlerCalls, EventStore events, EventRules eventRules,
            Duration dynamoDbStartTime) {
        this.costMeter = costMeter;
        this.stepFunctions = stepFunctions;
        this.deletions = deletions;
        this.metrics = metrics;
        this.handlerCalls = handlerCalls;
        this.events = events;
        this.eventRules = eventRules;
        this.dynamoDbStartTime = dynamoDbStartTime;
    }

    /** When Punctual deleted each item of the tables it is asked to {@link DeletionLedger#track track}. */
    public DeletionLedger deletions() {
        return deletions;
    }

    /**
     * The metrics every stream handler of this runtime published ({@code ExpiryLag}, expiries by
     * Punctual and by native TTL, ...): what the function would publish to CloudWatch in AWS.
     */
    public RetainedMetrics metrics() {
        return metrics;
    }

    /** What Punctual's own work on this runtime would be billed, counted so far. */
    public CostMeter.Snapshot costs() {
        StepFunctionsEngine engine = stepFunctions.engine();
        return costMeter.snapshot(new CostMeter.EngineCounts(engine.billedTransitions(), engine.startExecutionCalls(),
                engine.peakOpenExecutions(), engine.expressRequests(), engine.expressGbSeconds(), engine.executionLog().bytes()));
    }

    /** The stream handlers' DynamoDB and Step Functions calls, by kind, counted so far. */
    public HandlerCalls handlerCalls() {
        return handlerCalls;
    }

    /** What the Step Functions quotas have throttled so far (all zero without {@code --aws-quotas}). */
    public ThrottleCounts throttled() {
        return stepFunctions.throttles().counts();
    }

    /** The events the EventBridge endpoint accepted ({@code ItemExpired} among them), as {@code punctual events} lists them. */
    public EventStore events() {
        return events;
    }

    /**
     * The rules of the runtime's event bus, whose targets are in-process functions (windowed mode's
     * healing and sweep; none per item): what they delivered, retried and dropped.
     */
    public EventRules eventRules() {
        return eventRules;
    }

    /** How long DynamoDB Local took to start. */
    public Duration dynamoDbStartTime() {
        return dynamoDbStartTime;
    }
}
