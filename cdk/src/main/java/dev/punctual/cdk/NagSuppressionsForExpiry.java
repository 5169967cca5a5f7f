package dev.punctual.cdk;

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
        ModeResources mode = expiry.resources();
        String tracingNote = props.tracing()
                ? " X-Ray's PutTraceSegments, PutTelemetryRecords, GetSamplingRules and GetSamplingTargets"
                        + " likewise have no resource-level permissions, so tracing needs them on *."
                : "";

        logDelivery(expiry.stateMachine().getRole(), props);

        NagSuppressions.addResourceSuppressions(expiry.functionRole(), List.of(
                suppression("AwsSolutions-IAM5", "dynamodb:ListStreams does not support resource-level"
                        + " permissions (the event source mapping's stream read grant; AWS's own"
                        + " AWSLambdaDynamoDBExecutionRole grants it on *). Every other stream action is on"
                        + " this table's stream ARN only." + tracingNote, ANY_RESOURCE),
                suppression("AwsSolutions-IAM5", mode.descriptions().executionsWildcard(),
                        RegexAppliesTo.builder().regex(executionsFinding(expiry.stateMachineName())).build())),
                true);

        mode.suppressNagFindings();

        NagSuppressions.addResourceSuppressions(expiry.function(), List.of(pinnedRuntime()), true);

        NagSuppressions.addResourceSuppressions(expiry.deadLetterQueue(), List.of(
                suppression("AwsSolutions-SQS3", "This queue is itself the dead-letter queue: the on-failure"
                        + " destination of the stream's event source mapping. A further DLQ would only hold"
                        + " the same batch metadata again.")), true);

        List<NagPackSuppression> stateMachine = new ArrayList<>();
        stateMachine.add(suppression("AwsSolutions-SF1", mode.descriptions().stateMachineLogging()));
        if (!props.tracing()) {
            stateMachine.add(suppression("AwsSolutions-SF2", mode.descriptions().stateMachineTracing()));
        }
        NagSuppressions.addResourceSuppressions(expiry.stateMachine(), stateMachine, true);
    }

    /** A state machine role's CloudWatch Logs delivery actions (and X-Ray's, with tracing), which need *. */
    static void logDelivery(software.amazon.awscdk.services.iam.IRole role, PunctualExpiryProps props) {
        String tracingNote = props.tracing()
                ? " X-Ray's PutTraceSegments, PutTelemetryRecords, GetSamplingRules and GetSamplingTargets"
                        + " likewise have no resource-level permissions, so tracing needs them on *."
                : "";
        NagSuppressions.addResourceSuppressions(role, List.of(
                suppression("AwsSolutions-IAM5", "The CloudWatch Logs vended-log delivery actions"
                        + " (logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery,"
                        + " ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups)"
                        + " do not support resource-level permissions; Step Functions requires them on * to"
                        + " deliver execution logs." + tracingNote, ANY_RESOURCE)), true);
    }

    /** The finding for {@code arn:...:express:<name>:*}: an Express machine's executions. */
    static String expressExecutionsFinding(String stateMachineName) {
        return "/^Resource::arn:\\S+:states:\\S+:express:" + stateMachineName + ":\\*$/";
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

    /** Every function runs on java21, on purpose. */
    static NagPackSuppression pinnedRuntime() {
        return suppression("AwsSolutions-L1", "Pinned to java21 (LTS), the runtime"
                + " the handler is built, tested and SnapStart-primed for; a newer Java runtime is adopted as a"
                + " tested upgrade, not silently by a library bump.");
    }

    static NagPackSuppression suppression(String id, String reason, Object... appliesTo) {
        NagPackSuppression.Builder builder = NagPackSuppression.builder().id(id).reason(reason);
        if (appliesTo.length > 0) {
            builder.appliesTo(List.of(appliesTo));
        }
        return builder.build();
    }
}
