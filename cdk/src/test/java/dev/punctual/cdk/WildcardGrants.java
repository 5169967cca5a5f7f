package dev.punctual.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The only actions the construct may grant on {@code "Resource": "*"}: AWS offers no resource-level
 * permission for them (each is justified in a cdk-nag suppression).
 */
final class WildcardGrants {

    static final Set<String> JUSTIFIED = Set.of(
            // Step Functions' CloudWatch Logs delivery.
            "logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
            "logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies",
            "logs:DescribeLogGroups",
            // The event source mapping's stream discovery.
            "dynamodb:ListStreams",
            // X-Ray, when tracing is on.
            "xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules",
            "xray:GetSamplingTargets");

    private WildcardGrants() {
    }

    static Set<String> actionsOnAnyResource(List<JsonNode> statements) {
        return statements.stream()
                .filter(s -> TemplateJson.listOf(s.path("Resource")).stream().anyMatch(r -> "*".equals(r.asText())))
                .flatMap(s -> TemplateJson.actions(s).stream())
                .collect(Collectors.toSet());
    }
}
