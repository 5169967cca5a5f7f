package dev.punctual.cdk;

import dev.punctual.statemachine.ExecutionStatusEvents;
import dev.punctual.statemachine.ExpiryMetricNames;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.MathExpression;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.Stats;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.events.EventPattern;
import software.amazon.awscdk.services.events.Rule;
import software.amazon.awscdk.services.events.Schedule;
import software.amazon.awscdk.services.events.targets.LambdaFunction;
import software.amazon.awscdk.services.events.targets.LambdaFunctionProps;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.IRole;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.lambda.IFunction;
import software.amazon.awscdk.services.logs.FilterPattern;
import software.amazon.awscdk.services.logs.ILogGroup;
import software.amazon.awscdk.services.logs.MetricFilter;
import software.amazon.awscdk.services.sns.ITopic;
import software.constructs.Construct;

/**
 * Windowed mode's healing: an EventBridge rule on the default bus that matches Step Functions'
 * status-change events of the bucket state machine's executions ending {@code FAILED},
 * {@code TIMED_OUT} or {@code ABORTED} ({@link ExecutionStatusEvents#unfinishedPattern}), with the
 * bucket function's alias as its target: the function starts the bucket's next generation. Step
 * Functions delivers these events on a best-effort basis, so a second, scheduled rule hands the
 * function a sweep every {@link ExecutionStatusEvents#SWEEP_INTERVAL}, which replaces whatever no event
 * reached. The function's role holds only what that takes: {@code states:StartExecution} and
 * {@code states:ListExecutions} on this state machine, {@code states:DescribeExecution} on its
 * executions; each rule may invoke only that alias (a resource policy naming the rule). Two alarms:
 * deliveries the rules could not make, and buckets given up after their last generation.
 */
final class BucketHealingRules extends Construct {

    /**
     * How long EventBridge keeps trying to hand a status change to the function (its maximum): a
     * bucket's successor is started late rather than never while Lambda throttles.
     */
    static final Duration MAX_EVENT_AGE = Duration.hours(24);
    /** EventBridge's most delivery attempts (its default), within {@link #MAX_EVENT_AGE}. */
    static final int RETRY_ATTEMPTS = 185;
    /** The metric the bucket function's "bucket abandoned" log lines count, in {@link ExpiryMetricNames#NAMESPACE}. */
    static final String BUCKETS_ABANDONED = "BucketsAbandoned";

    /**
     * @param stateMachineArn the bucket state machine's ARN
     * @param bucketFunction what the rule invokes: the bucket function's alias
     * @param bucketFunctionLogs where the function logs an abandoned bucket
     * @param tableName the table, the dimension of {@link #BUCKETS_ABANDONED}
     */
    BucketHealingRules(Construct scope, String id, String stateMachineArn, IFunction bucketFunction, IRole bucketFunctionRole,
            ILogGroup bucketFunctionLogs, String tableName, Optional<ITopic> alarmTopic) {
        super(scope, id);
        LambdaFunctionProps retried = LambdaFunctionProps.builder().maxEventAge(MAX_EVENT_AGE).retryAttempts(RETRY_ATTEMPTS).build();
        Rule rule = Rule.Builder.create(this, "HealingRule")
                .description("Punctual windowed: a bucket execution ended FAILED, TIMED_OUT or ABORTED; the bucket function"
                        + " starts its next generation")
                .eventPattern(EventPattern.builder()
                        .source(List.of(ExecutionStatusEvents.SOURCE))
                        .detailType(List.of(ExecutionStatusEvents.DETAIL_TYPE))
                        .detail(new TreeMap<>(Map.of(ExecutionStatusEvents.STATE_MACHINE_ARN, List.of(stateMachineArn),
                                ExecutionStatusEvents.STATUS, ExecutionStatusEvents.UNFINISHED)))
                        .build())
                .targets(List.of(new LambdaFunction(bucketFunction, retried)))
                .build();
        // Step Functions delivers status changes on a best-effort basis: the sweep finds what none reached.
        Rule sweep = Rule.Builder.create(this, "SweepRule")
                .description("Punctual windowed: every " + ExecutionStatusEvents.SWEEP_INTERVAL.toMinutes() + " minutes the"
                        + " bucket function replaces any bucket execution of the last day that ended unfinished unreplaced")
                .schedule(Schedule.rate(Duration.minutes(ExecutionStatusEvents.SWEEP_INTERVAL.toMinutes())))
                .targets(List.of(new LambdaFunction(bucketFunction, retried)))
                .build();
        // The sweep lists this state machine's unfinished executions; ListExecutions is granted on the machine's ARN.
        bucketFunctionRole.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .effect(Effect.ALLOW)
                .actions(List.of("states:ListExecutions"))
                .resources(List.of(stateMachineArn))
                .build());

        Duration fiveMinutes = Duration.minutes(5);
        Alarm deliveriesFailed = alarm("HealingDeliveriesFailedAlarm", MathExpression.Builder.create()
                        .expression("statusChanges + sweeps")
                        // Sorted: Map.of's order changes from one JVM to the next, and so would the template.
                        .usingMetrics(new TreeMap<>(Map.of("statusChanges", failedInvocations(rule, fiveMinutes),
                                "sweeps", failedInvocations(sweep, fiveMinutes))))
                        .label("Failed invocations of the bucket function by the healing rules")
                        .period(fiveMinutes)
                        .build(),
                "EventBridge could not invoke the bucket function for a failed bucket execution or for the sweep: a"
                        + " bucket's next generation waits for the next sweep or write, and its items may be deleted late");
        Metric abandoned = MetricFilter.Builder.create(this, "BucketsAbandonedFilter")
                .logGroup(bucketFunctionLogs)
                .filterPattern(FilterPattern.stringValue("$.outcome", "=", "abandoned"))
                .metricNamespace(ExpiryMetricNames.NAMESPACE)
                .metricName(BUCKETS_ABANDONED)
                .metricValue("1")
                .dimensions(Map.of(ExpiryMetricNames.DIMENSION_TABLE, "$.table"))
                .build()
                .metric()
                .with(software.amazon.awscdk.services.cloudwatch.MetricOptions.builder()
                        .dimensionsMap(Map.of(ExpiryMetricNames.DIMENSION_TABLE, tableName))
                        .statistic(Stats.SUM)
                        .period(fiveMinutes)
                        .build());
        Alarm bucketsAbandoned = alarm("BucketsAbandonedAlarm", abandoned,
                "A bucket failed through its last generation (about four hours of tries): no execution will delete"
                        + " its items, which native TTL still deletes, late; see the bucket function's log for the bucket");
        alarmTopic.ifPresent(topic -> List.of(deliveriesFailed, bucketsAbandoned).forEach(alarm -> {
            alarm.addAlarmAction(new SnsAction(topic));
            alarm.addOkAction(new SnsAction(topic));
        }));
    }

    private static Metric failedInvocations(Rule rule, Duration period) {
        return Metric.Builder.create()
                .namespace("AWS/Events")
                .metricName("FailedInvocations")
                .dimensionsMap(Map.of("RuleName", rule.getRuleName()))
                .statistic(Stats.SUM)
                .period(period)
                .build();
    }

    private Alarm alarm(String id, IMetric metric, String description) {
        return Alarm.Builder.create(this, id)
                .metric(metric)
                .threshold(1)
                .comparisonOperator(ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD)
                .evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .alarmDescription(description)
                .build();
    }
}
