package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMetricNames;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.CreateAlarmOptions;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.Stats;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.constructs.Construct;

/**
 * What {@link PunctualExpiry} watches: one alarm per way expiries can go late or missing, and the
 * dashboard an operator looks at first. The stream function, the dead-letter queue and the handler's
 * own metrics ({@link ExpiryMetricNames}) are the same in every mode; the executions watched are those
 * of the mode's state machine, and the mode adds alarms on its own resources ({@link ModeResources#alarms()}).
 */
final class ExpiryObservability {

    /** The period the alarms on failures sum over. */
    static final Duration ALARM_PERIOD = Duration.minutes(5);

    private final Construct scope;
    private final PunctualExpiryProps props;
    private final ModeResources mode;
    private final Function function;
    private final Queue deadLetterQueue;
    private final String tableName;

    ExpiryObservability(Construct scope, PunctualExpiryProps props, ModeResources mode, Function function,
            Queue deadLetterQueue) {
        this.scope = scope;
        this.props = props;
        this.mode = mode;
        this.function = function;
        this.deadLetterQueue = deadLetterQueue;
        this.tableName = props.table().getTableName();
    }

    /** Creates the alarms, each notifying the props' alarm topic, if any, when it fires and when it clears. */
    ExpiryAlarms createAlarms() {
        StateMachine stateMachine = mode.stateMachine();
        ExpiryAlarms created = new ExpiryAlarms(
                alarm(scope, "IteratorAgeAlarm", function.metric("IteratorAge", MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(Duration.minutes(1)).build()),
                        PunctualExpiry.ITERATOR_AGE_ALARM.toMilliseconds().doubleValue(),
                        ComparisonOperator.GREATER_THAN_THRESHOLD,
                        "The expiry function is over a minute behind the table's stream: new items are scheduled late"),
                alarm(scope, "FunctionErrorsAlarm", function.metricErrors(sum(ALARM_PERIOD)),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        "The expiry function failed; the stream batch is retried, then sent to the dead-letter queue"),
                alarm(scope, "DeadLettersAlarm", deadLetterQueue.metricApproximateNumberOfMessagesVisible(MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(ALARM_PERIOD).build()),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        "Stream records were given up on: those items are not scheduled (native TTL deletes them late)"),
                alarm(scope, "ExecutionsFailedAlarm", stateMachine.metricFailed(sum(ALARM_PERIOD)),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, mode.descriptions().executionsFailed()),
                alarm(scope, "ExecutionsTimedOutAlarm", stateMachine.metricTimedOut(sum(ALARM_PERIOD)),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, mode.descriptions().executionsTimedOut()),
                mode.alarms(),
                alarm(scope, "ExpiryLagAlarm", expiryMetric(ExpiryMetricNames.EXPIRY_LAG, Stats.percentile(99), ALARM_PERIOD),
                        props.lagAlarmThreshold().toMillis(), ComparisonOperator.GREATER_THAN_THRESHOLD,
                        "Expiry lag p99 (TTL to the stream record of Punctual's delete; an upper bound, it includes"
                                + " the stream's delay) is above " + props.lagAlarmThreshold().toMillis() + " ms"),
                alarm(scope, "BackstopWinsAlarm", expiryMetric(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL, Stats.SUM, ALARM_PERIOD),
                        1, ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                        "Native TTL deleted an item before Punctual did: that item expired late"));
        // No alarm on aborted executions: with cancelStale on, StopExecution aborts stale ones by design.
        props.alarmTopic().ifPresent(topic -> created.all().forEach(alarm -> {
            alarm.addAlarmAction(new SnsAction(topic));
            alarm.addOkAction(new SnsAction(topic));
        }));
        return created;
    }

    /**
     * What an operator looks at first: how late expiry runs (p50 and p99 of the lag, an upper bound since
     * it includes the stream's delay), how often native TTL won, whether the function keeps up with the
     * stream, the executions' fate and the dead letters.
     */
    Dashboard createDashboard() {
        Duration period = Duration.minutes(1);
        StateMachine stateMachine = mode.stateMachine();
        Dashboard dashboard = Dashboard.Builder.create(scope, "Dashboard").build();
        dashboard.addWidgets(
                graph("Expiry lag, TTL to Punctual's delete (ms, upper bound: includes stream delay)",
                        List.of(expiryMetric(ExpiryMetricNames.EXPIRY_LAG, Stats.percentile(50), period).with(
                                        MetricOptions.builder().label("p50").build()),
                                expiryMetric(ExpiryMetricNames.EXPIRY_LAG, Stats.percentile(99), period).with(
                                        MetricOptions.builder().label("p99").build()))),
                graph("Expiries: by Punctual, by native TTL (backstop wins)",
                        List.of(expiryMetric(ExpiryMetricNames.EXPIRED_BY_PUNCTUAL, Stats.SUM, period),
                                expiryMetric(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL, Stats.SUM, period))),
                graph("Stream iterator age (ms)",
                        List.of(function.metric("IteratorAge", MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(period).build()))));
        dashboard.addWidgets(
                graph("Executions: started, failed, timed out",
                        List.of(stateMachine.metricStarted(sum(period)), stateMachine.metricFailed(sum(period)),
                                stateMachine.metricTimedOut(sum(period)))),
                graph("Records: scheduled, superseded; start failures",
                        List.of(expiryMetric(ExpiryMetricNames.RECORDS_SCHEDULED, Stats.SUM, period),
                                expiryMetric(ExpiryMetricNames.RECORDS_SUPERSEDED, Stats.SUM, period),
                                expiryMetric(ExpiryMetricNames.START_EXECUTION_FAILURES, Stats.SUM, period))),
                graph("Dead-letter queue depth",
                        List.of(deadLetterQueue.metricApproximateNumberOfMessagesVisible(MetricOptions.builder()
                                .statistic(Stats.MAXIMUM).period(period).build()))));
        return dashboard;
    }

    /** An alarm that fires on one breaching period and counts missing data as fine. */
    static Alarm alarm(Construct scope, String id, Metric metric, double threshold, ComparisonOperator operator,
            String description) {
        return metric.createAlarm(scope, id, CreateAlarmOptions.builder()
                .threshold(threshold)
                .comparisonOperator(operator)
                .evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .alarmDescription(description)
                .build());
    }

    /** One of the handler's own metrics ({@link ExpiryMetricNames}) for this construct's table. */
    private Metric expiryMetric(String name, String statistic, Duration period) {
        return Metric.Builder.create()
                .namespace(ExpiryMetricNames.NAMESPACE)
                .metricName(name)
                .dimensionsMap(Map.of(ExpiryMetricNames.DIMENSION_TABLE, tableName))
                .statistic(statistic)
                .period(period)
                .build();
    }

    private static MetricOptions sum(Duration period) {
        return MetricOptions.builder().statistic(Stats.SUM).period(period).build();
    }

    private static GraphWidget graph(String title, List<IMetric> metrics) {
        return GraphWidget.Builder.create().title(title).left(metrics).width(8).build();
    }
}
