package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.MetricSink;
import dev.punctual.statemachine.ExpiryMetricNames;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Lambda sink's embedded metric format output (surefire sets {@code AWS_EMF_ENVIRONMENT=Local}, whose
 * sink writes to standard output as Lambda's does): exactly the dimensions the dashboard asks for.
 */
class PowertoolsMetricSinkTest {

    @Test
    void flush_writesOneEmfDocumentPerDimensionSet_withoutTheServiceDimension() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            PowertoolsMetricSink sink = new PowertoolsMetricSink();
            sink.add(ExpiryMetricNames.EXPIRY_LAG, 812, MetricSink.Unit.MILLISECONDS,
                    Map.of(ExpiryMetricNames.DIMENSION_TABLE, "orders"));
            sink.add(ExpiryMetricNames.RECORDS_IGNORED, 1, MetricSink.Unit.COUNT,
                    Map.of(ExpiryMetricNames.DIMENSION_TABLE, "orders", ExpiryMetricNames.DIMENSION_REASON, "NO_TTL"));
            sink.flush();
        } finally {
            System.setOut(original);
        }

        List<JsonNode> documents = new ArrayList<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
            if (line.contains("\"_aws\"")) {
                documents.add(new ObjectMapper().readTree(line));
            }
        }
        assertThat(documents).hasSize(2);
        JsonNode lag = documents.stream().filter(d -> d.has(ExpiryMetricNames.EXPIRY_LAG)).findFirst().orElseThrow();
        JsonNode directive = lag.get("_aws").get("CloudWatchMetrics").get(0);
        assertThat(directive.get("Namespace").asText()).isEqualTo(ExpiryMetricNames.NAMESPACE);
        assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"TableName\"]]");
        assertThat(directive.get("Metrics").get(0).get("Unit").asText()).isEqualTo("Milliseconds");
        assertThat(lag.get(ExpiryMetricNames.EXPIRY_LAG).asDouble()).isEqualTo(812.0);
        assertThat(lag.get(ExpiryMetricNames.DIMENSION_TABLE).asText()).isEqualTo("orders");
    }
}
