package dev.punctual.local.healing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.events.EventRules;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stepfunctions.executions.Page;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.ExecutionStatusEvents;
import java.util.List;
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
 * <p>Delivery is in memory, so a crash can lose an event not yet delivered: at start, the rule is
 * given again every unfinished bucket execution the engine recovered, and the function, being
 * idempotent, starts only what is missing.
 */
public final class BucketHealingRule implements AutoCloseable {

    /** The rule's name, as the construct's rule is described. */
    public static final String NAME = "punctual-bucket-healing";

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
     * {@code bucketStateMachineArn} to {@code bucketFunction}, and republishes the unfinished ones the
     * engine already holds.
     */
    public static BucketHealingRule install(StepFunctionsEngine engine, String bucketStateMachineArn, Timer timer,
            Consumer<ObjectNode> bucketFunction, String region, String account) {
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
        BucketHealingRule rule = new BucketHealingRule(engine, publisher, rules, deliveries);
        rule.republishUnfinished(bucketStateMachineArn);
        return rule;
    }

    /** The rule's deliveries: how many succeeded, failed, were dropped. */
    public EventRules rules() {
        return rules;
    }

    private void republishUnfinished(String stateMachineArn) {
        for (ExecutionStatus status : List.of(ExecutionStatus.FAILED, ExecutionStatus.TIMED_OUT, ExecutionStatus.ABORTED)) {
            String token = null;
            do {
                Page<ExecutionSummary> page = engine.listExecutions(stateMachineArn, status, 1000, token);
                page.items().forEach(summary -> publisher.publish(engine.describeExecution(summary.executionArn())));
                token = page.nextToken();
            } while (token != null);
        }
    }

    @Override
    public void close() {
        engine.removeListener(publisher);
        deliveries.shutdownNow();
    }
}
