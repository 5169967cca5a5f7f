package dev.punctual.local.healing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.events.EventRules;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.ExecutionStatusEvents;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Windowed mode's healing on the local runtime, as the construct deploys it in AWS: the engine
 * publishes Step Functions' status-change events ({@link ExecutionStatusPublisher}), and a rule with the
 * construct's pattern ({@link ExecutionStatusEvents#unfinishedPattern}) delivers those of bucket
 * executions that ended unfinished to the bucket function, which starts the successor generation.
 *
 * <p>And, as in AWS, a scheduled rule hands the function a sweep every
 * {@link ExecutionStatusEvents#SWEEP_INTERVAL}, which replaces any unfinished bucket execution of the
 * last day that no status change reached. Delivery here is in memory, so a crash can lose an event
 * not yet delivered; the sweep also runs as the runtime starts, which catches those.
 */
public final class BucketHealingRule implements AutoCloseable {

    /** The status-change rule's name. */
    public static final String NAME = "punctual-bucket-healing";
    /** The sweep's scheduled rule's name. */
    public static final String SWEEP_NAME = "punctual-bucket-sweep";

    private final StepFunctionsEngine engine;
    private final ExecutionStatusPublisher publisher;
    private final EventRules rules;
    private final ExecutorService deliveries;

    private BucketHealingRule(StepFunctionsEngine engine, ExecutionStatusPublisher publisher, EventRules rules,
            ExecutorService deliveries) {
        this.engine = engine;
        this.publisher = publisher;
        this.rules = rules;
        this.deliveries = deliveries;
    }

    /**
     * Publishes {@code engine}'s status changes from now on, routes those of unfinished executions of
     * {@code bucketStateMachineArn} to {@code bucketFunction}, and hands {@code sweepTarget} (the same
     * function, invoked as the sweep's rule invokes it) a sweep now and at every interval.
     */
    public static BucketHealingRule install(StepFunctionsEngine engine, String bucketStateMachineArn, Timer timer,
            Consumer<ObjectNode> bucketFunction, Consumer<ObjectNode> sweepTarget, String region, String account) {
        Objects.requireNonNull(bucketFunction, "bucketFunction");
        ExecutorService deliveries = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "punctual-event-delivery");
            thread.setDaemon(true);
            return thread;
        });
        EventRules rules = new EventRules(timer, deliveries)
                .add(NAME, ExecutionStatusEvents.unfinishedPattern(bucketStateMachineArn), bucketFunction);
        ExecutionStatusPublisher publisher = new ExecutionStatusPublisher(rules, region, account);
        engine.addListener(publisher);
        rules.addSchedule(SWEEP_NAME, ExecutionStatusEvents.SWEEP_INTERVAL, region, account, sweepTarget);
        return new BucketHealingRule(engine, publisher, rules, deliveries);
    }

    /** The rule's deliveries: how many succeeded, failed, were dropped. */
    public EventRules rules() {
        return rules;
    }

    @Override
    public void close() {
        engine.removeListener(publisher);
        rules.close();
        deliveries.shutdownNow();
    }
}
