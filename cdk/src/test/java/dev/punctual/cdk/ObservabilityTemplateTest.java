package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.statemachine.ExpiryMetricNames;
import dev.punctual.statemachine.PunctualVersion;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dashboard and the expiry alarms read exactly the metrics the handler publishes (names from
 * {@link ExpiryMetricNames}), the version tag is {@link PunctualVersion}'s, and the bundle is staged under
 * its content hash.
 */
class ObservabilityTemplateTest {

    private final SynthesizedStacks.Synthesized demo = SynthesizedStacks.demo();
    private final TemplateJson template = demo.template();

    private JsonNode alarmOf(software.amazon.awscdk.services.cloudwatch.Alarm alarm) {
        return template.propertiesOf(alarm);
    }

    private String dashboardBody() {
        return TemplateJson.render(template.single("AWS::CloudWatch::Dashboard").path("DashboardBody"));
    }

    @Test
    void dashboard_graphsEveryHandlerMetric_forThisTable_plusIteratorAgeExecutionsAndDeadLetters() {
        String body = dashboardBody();

        for (String name : List.of(ExpiryMetricNames.EXPIRY_LAG, ExpiryMetricNames.EXPIRED_BY_PUNCTUAL,
                ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL, ExpiryMetricNames.RECORDS_SCHEDULED,
                ExpiryMetricNames.RECORDS_SUPERSEDED, ExpiryMetricNames.START_EXECUTION_FAILURES)) {
            assertThat(body).contains("[\"" + ExpiryMetricNames.NAMESPACE + "\",\"" + name + "\",\""
                    + ExpiryMetricNames.DIMENSION_TABLE + "\",");
        }
        assertThat(body).contains("\"stat\":\"p50\"", "\"stat\":\"p99\"", "\"IteratorAge\"", "\"ExecutionsStarted\"",
                "\"ExecutionsFailed\"", "\"ExecutionsTimedOut\"", "\"ApproximateNumberOfMessagesVisible\"");
    }

    @Test
    void lagAlarm_firesOnP99AboveFiveSecondsByDefault() {
        JsonNode alarm = alarmOf(demo.expiry().alarms().expiryLag());

        assertThat(alarm.path("Namespace").asText()).isEqualTo(ExpiryMetricNames.NAMESPACE);
        assertThat(alarm.path("MetricName").asText()).isEqualTo(ExpiryMetricNames.EXPIRY_LAG);
        assertThat(alarm.path("ExtendedStatistic").asText()).isEqualTo("p99");
        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(5_000.0);
        assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanThreshold");
        assertThat(alarm.at("/Dimensions/0/Name").asText()).isEqualTo(ExpiryMetricNames.DIMENSION_TABLE);
    }

    @Test
    void lagAlarm_thresholdFollowsTheProps() {
        JsonNode alarm = SynthesizedStacks.attached().template()
                .propertiesOf(SynthesizedStacks.attached().expiry().alarms().expiryLag());

        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(SynthesizedStacks.ATTACHED_LAG_THRESHOLD.toMillis());
        assertThat(TemplateJson.render(alarm.at("/Dimensions/0/Value"))).isEqualTo(SynthesizedStacks.ATTACHED_TABLE);
    }

    @Test
    void backstopAlarm_firesOnAnyNativeTtlDelete() {
        JsonNode alarm = alarmOf(demo.expiry().alarms().backstopWins());

        assertThat(alarm.path("MetricName").asText()).isEqualTo(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL);
        assertThat(alarm.path("Statistic").asText()).isEqualTo("Sum");
        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(1.0);
        assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanOrEqualToThreshold");
    }

    @Test
    void metrics_needNoPermission_embeddedMetricFormatIsALogLine() {
        assertThat(template.allStatements()).noneMatch(statement -> TemplateJson.actions(statement).stream()
                .anyMatch(action -> action.startsWith("cloudwatch:")));
    }

    @Test
    void function_isTaggedWithTheOneVersion_andCodeIsStagedUnderTheBundlesContentHash() throws Exception {
        JsonNode function = template.propertiesOf(demo.expiry().function());

        assertThat(function.path("Tags").toString()).contains(
                "{\"Key\":\"" + PunctualExpiry.VERSION_TAG + "\",\"Value\":\"" + PunctualVersion.current() + "\"}");
        // CDK stages a custom asset hash as the SHA-256 of that hash: a function of the jar's bytes only.
        assertThat(function.at("/Code/S3Key").asText())
                .isEqualTo(sha256(FunctionBundle.assetHash(FunctionBundle.locate())) + ".jar");
    }

    private static String sha256(String text) throws java.security.NoSuchAlgorithmException {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Test
    void handlerMetricNames_areDistinct() {
        List<String> names = List.of(ExpiryMetricNames.EXPIRY_LAG, ExpiryMetricNames.EXPIRED_BY_PUNCTUAL,
                ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL, ExpiryMetricNames.RECORDS_SCHEDULED,
                ExpiryMetricNames.RECORDS_SUPERSEDED, ExpiryMetricNames.RECORDS_IGNORED,
                ExpiryMetricNames.START_EXECUTION_FAILURES);
        assertThat(Map.copyOf(names.stream().collect(java.util.stream.Collectors.toMap(n -> n, n -> n)))).hasSize(7);
    }
}
