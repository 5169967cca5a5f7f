package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.ArrayList;
import java.util.List;

/**
 * cdk-nag (AWS Solutions) suppressions for {@link PunctualExpiry}, each scoped to the one resource and,
 * for wildcards, the one finding it covers, with the reason a reviewer can check.
 */
final class NagSuppressionsForExpiry {

    /** What cdk-nag calls a {@code "Resource": "*"} in a policy. */
    static final String ANY_RESOURCE = "Resource::*";

    private NagSuppressionsForExpiry() {
    }

    static void apply(PunctualExpiry expiry, PunctualExpiryProps props) {
        boolean windowed = props.mode() == ExpiryMode.WINDOWED;
        String tracingNote = props.tracing()
                ? " X-Ray's PutTraceSegments, PutTelemetryRecords, GetSamplingRules and GetSamplingTargets"
                        + " likewise have no resource-level permissions, so tracing needs them on *."
                : "";

        NagSuppressions.addResourceSuppressions(expiry.stateMachine().getRole(), List.of(
                suppression("AwsSolutions-IAM5", "The CloudWatch Logs vended-log delivery actions"
                        + " (logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery,"
                        + " ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups)"
                        + " do not support resource-level permissions; Step Functions requires them on * to"
                        + " deliver execution logs." + tracingNote, ANY_RESOURCE)), true);

        NagSuppressions.addResourceSuppressions(expiry.functionRole(), List.of(
                suppression("AwsSolutions-IAM5", "dynamodb:ListStreams does not support resource-level"
                        + " permissions (the event source mapping's stream read grant; AWS's own"
                        + " AWSLambdaDynamoDBExecutionRole grants it on *). Every other stream action is on"
                        + " this table's stream ARN only." + tracingNote, ANY_RESOURCE),
                suppression("AwsSolutions-IAM5", windowed
                                ? "Bucket executions are named per bucket at run time, so their ARNs cannot be"
                                        + " listed; the wildcard covers only the executions of this construct's own"
                                        + " bucket state machine, for DescribeExecution (name conflicts)."
                                : "Executions are named per item at run time, so their ARNs"
                                        + " cannot be listed; the wildcard covers only the executions of this"
                                        + " construct's own state machine, for DescribeExecution (name conflicts)"
                                        + " and StopExecution (cancelling stale expiries).",
                        RegexAppliesTo.builder().regex(executionsFinding(expiry.stateMachineName())).build())),
                true);

        expiry.bucketFunctionRole().ifPresent(role -> {
            List<NagPackSuppression> bucketRole = new ArrayList<>();
            bucketRole.add(suppression("AwsSolutions-IAM5", "Bucket executions are named per bucket at run time,"
                    + " so their ARNs cannot be listed; the wildcard covers only the executions of this construct's"
                    + " own bucket state machine, for DescribeExecution (is a running child or successor ours?).",
                    RegexAppliesTo.builder().regex(executionsFinding(expiry.stateMachineName())).build()));
            if (props.tracing()) {
                bucketRole.add(suppression("AwsSolutions-IAM5", "X-Ray's PutTraceSegments, PutTelemetryRecords,"
                        + " GetSamplingRules and GetSamplingTargets have no resource-level permissions, so"
                        + " tracing (on with tracing(true)) needs them on *.", ANY_RESOURCE));
            }
            NagSuppressions.addResourceSuppressions(role, bucketRole, true);
        });

        NagPackSuppression pinnedRuntime = suppression("AwsSolutions-L1", "Pinned to java21 (LTS), the runtime"
                + " the handler is built, tested and SnapStart-primed for; a newer Java runtime is adopted as a"
                + " tested upgrade, not silently by a library bump.");
        NagSuppressions.addResourceSuppressions(expiry.function(), List.of(pinnedRuntime), true);
        expiry.bucketFunction().ifPresent(bucketFunction ->
                NagSuppressions.addResourceSuppressions(bucketFunction, List.of(pinnedRuntime), true));

        NagSuppressions.addResourceSuppressions(expiry.deadLetterQueue(), List.of(
                suppression("AwsSolutions-SQS3", "This queue is itself the dead-letter queue: the on-failure"
                        + " destination of the stream's event source mapping. A further DLQ would only hold"
                        + " the same batch metadata again.")), true);

        List<NagPackSuppression> stateMachine = new ArrayList<>();
        stateMachine.add(suppression("AwsSolutions-SF1", windowed
                ? "Logging is at ERROR without execution data on purpose: a successful bucket has nothing to"
                        + " report that its execution history (output: items, expired, superseded) lacks, and"
                        + " the bucket function logs each bucket once itself. Every failure is logged and"
                        + " alarmed (ExecutionsFailed, ExecutionsTimedOut, BucketFunctionErrors)."
                : "Logging is at ERROR without execution data on"
                        + " purpose: inputs carry item keys (user data must not reach logs), a successful expiry"
                        + " has nothing to report that its execution history lacks, and ALL would log several"
                        + " events per item. Every failure is logged and alarmed (ExecutionsFailed,"
                        + " ExecutionsTimedOut)."));
        if (!props.tracing()) {
            stateMachine.add(suppression("AwsSolutions-SF2", windowed
                    ? "X-Ray tracing is opt-in (tracing(true)): a trace of one Wait and one function invoke per"
                            + " bucket adds cost and little insight; failures are visible in logs, execution"
                            + " history and alarms."
                    : "X-Ray tracing is opt-in (tracing(true)): a"
                            + " trace of one Wait and one DeleteItem per item adds cost per expiry and little"
                            + " insight; failures are visible in logs, execution history and alarms."));
        }
        NagSuppressions.addResourceSuppressions(expiry.stateMachine(), stateMachine, true);
    }

    /**
     * The finding for {@code arn:...:execution:<name>:*}, whose Region and account read as
     * {@code <AWS::Region>} (colons inside) in an environment-agnostic stack and literally when the CLI
     * supplies them.
     * State machine names hold only letters, digits, '-' and '_', which need no escaping.
     */
    static String executionsFinding(String stateMachineName) {
        return "/^Resource::arn:\\S+:states:\\S+:execution:" + stateMachineName + ":\\*$/";
    }

    static NagPackSuppression suppression(String id, String reason, Object... appliesTo) {
        NagPackSuppression.Builder builder = NagPackSuppression.builder().id(id).reason(reason);
        if (appliesTo.length > 0) {
            builder.appliesTo(List.of(appliesTo));
        }
        return builder.build();
    }
}
