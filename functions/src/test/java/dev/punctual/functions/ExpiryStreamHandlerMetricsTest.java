package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.RecordedMetrics;
import dev.punctual.statemachine.ExpiryMetricNames;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.TestLambdaContext;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The metrics the handler publishes for JSON stream events, on a fixed clock. */
class ExpiryStreamHandlerMetricsTest {

    /** 3.25 s after {@code remove-after-expiry.json}'s TTL, 1767225598 (2025-12-31T23:59:58Z). */
    static final Instant HANDLED_AT = Instant.parse("2026-01-01T00:00:01.250Z");

    private final RecordedMetrics metrics = new RecordedMetrics();
    private final ExpiryStreamHandler handler = handler(new FakeExecutions());

    private ExpiryStreamHandler handler(FakeExecutions executions) {
        return new ExpiryStreamHandler(FunctionParts.builder(Map.of(
                        StreamWiring.ENV_STATE_MACHINE_ARN, "arn:aws:states:us-east-1:123456789012:stateMachine:expire-item",
                        StreamWiring.ENV_TTL_ATTRIBUTE, "ttl"))
                .executions(executions).clock(Clock.fixed(HANDLED_AT, ZoneOffset.UTC)).metrics(metrics).build());
    }

    @AfterEach
    void close() throws Exception {
        handler.close();
    }

    private void handle(String fixture) {
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/" + fixture);
        handler.handleRequest(event, TestLambdaContext.invocation());
    }

    @Test
    void handleRequest_whenPunctualsOwnRemove_publishesOneLagPointFromTtlToHandling() {
        handle("remove-after-expiry.json");

        assertThat(metrics.named(ExpiryMetricNames.EXPIRY_LAG)).singleElement().satisfies(point -> {
            assertThat(point.value()).isEqualTo(3_250.0);
            assertThat(point.unit()).isEqualTo(MetricSink.Unit.MILLISECONDS);
            assertThat(point.dimensions()).isEqualTo(Map.of(ExpiryMetricNames.DIMENSION_TABLE, "orders"));
        });
        assertThat(metrics.sum(ExpiryMetricNames.EXPIRED_BY_PUNCTUAL)).isEqualTo(1.0);
        assertThat(metrics.named(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL)).isEmpty();
    }

    @Test
    void handleRequest_whenNativeTtlRemove_countsABackstopWinAndNoLag() {
        handle("remove-by-ttl-service.json");

        assertThat(metrics.sum(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL)).isEqualTo(1.0);
        assertThat(metrics.named(ExpiryMetricNames.EXPIRY_LAG)).isEmpty();
        assertThat(metrics.named(ExpiryMetricNames.EXPIRED_BY_PUNCTUAL)).isEmpty();
    }

    @Test
    void handleRequest_whenApplicationDeletesBeforeTtl_emitsNoLagAndCountsASupersededRecord() {
        handle("remove-by-user.json");

        assertThat(metrics.named(ExpiryMetricNames.EXPIRY_LAG)).isEmpty();
        assertThat(metrics.named(ExpiryMetricNames.EXPIRED_BY_NATIVE_TTL)).isEmpty();
        assertThat(metrics.sum(ExpiryMetricNames.RECORDS_SUPERSEDED)).isEqualTo(1.0);
    }

    @Test
    void handleRequest_whenInsertAndIgnoredRecords_countsScheduledAndIgnoredByReason() {
        handle("insert.json");
        handle("missing-ttl.json");

        assertThat(metrics.sum(ExpiryMetricNames.RECORDS_SCHEDULED)).isEqualTo(1.0);
        assertThat(metrics.named(ExpiryMetricNames.RECORDS_IGNORED)).singleElement()
                .satisfies(point -> assertThat(point.dimensions()).containsEntry(ExpiryMetricNames.DIMENSION_REASON, "NO_TTL"));
    }

    @Test
    void handleRequest_whenStartExecutionFails_countsTheFailure() {
        FakeExecutions failing = new FakeExecutions();
        failing.failStarts(name -> true, new IllegalStateException("boom"));
        try (ExpiryStreamHandler failingHandler = handler(failing)) {
            failingHandler.handleRequest(EventLoader.loadDynamoDbEvent("events/insert.json"), TestLambdaContext.invocation());
        } catch (Exception e) {
            throw new AssertionError(e);
        }

        assertThat(metrics.sum(ExpiryMetricNames.START_EXECUTION_FAILURES)).isEqualTo(1.0);
    }
}
