package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.SteppingClock;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.expiry.ThrottledException;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.TestLambdaContext;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.logging.log4j.core.Layout;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.sfn.model.SfnException;

/** The log lines as the shipped {@code log4j2.xml} writes them: one JSON object per record, no user data. */
class DecisionLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private AbstractAppender capture;
    private ExpiryStreamHandler handler;

    @BeforeEach
    void captureTheShippedLayout() {
        LoggerContext context = LoggerContext.getContext(false);
        Configuration config = context.getConfiguration();
        Layout<?> layout = config.getAppender("JsonAppender").getLayout();
        capture = new AbstractAppender("capture", null, layout, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(new String(getLayout().toByteArray(event), java.nio.charset.StandardCharsets.UTF_8));
            }
        };
        capture.start();
        config.getLoggerConfig("dev.punctual").addAppender(capture, null, null);
        // Powertools warns about reserved keys through its own logger, which only the root logger hears.
        config.getRootLogger().addAppender(capture, null, null);
        context.updateLoggers();
        handler = new ExpiryStreamHandler(parts().executions(new FakeExecutions())
                .clock(Clock.fixed(ExpiryStreamHandlerTest.NOW, ZoneOffset.UTC)).metrics(MetricSink.DISCARD).build());
    }

    @AfterEach
    void release() throws Exception {
        LoggerContext context = LoggerContext.getContext(false);
        context.getConfiguration().getLoggerConfig("dev.punctual").removeAppender("capture");
        context.getConfiguration().getRootLogger().removeAppender("capture");
        context.updateLoggers();
        capture.stop();
        handler.close();
    }

    @Test
    void everyRecordGetsOneJsonLineWithTheDecisionKeys() throws Exception {
        handler.handleRequest(EventLoader.loadDynamoDbEvent("events/mixed-batch.json"), TestLambdaContext.invocation());

        assertThat(lines).hasSize(5);
        JsonNode scheduled = lines.stream().map(DecisionLogTest::parse)
                .filter(line -> "601".equals(line.path("sequenceNumber").asText())).findFirst().orElseThrow();
        assertThat(scheduled.path("level").asText()).isEqualTo("INFO");
        assertThat(scheduled.path("message").asText()).isEqualTo("TTL set; expires at 2026-01-01T00:01:40Z");
        assertThat(scheduled.path("table").asText()).isEqualTo("orders");
        assertThat(scheduled.path("keyDigest").asText()).isEqualTo("7f6b21020f5a");
        assertThat(scheduled.path("ttl").asText()).isEqualTo("1767225700");
        assertThat(scheduled.path("decision").asText()).isEqualTo("schedule");
        assertThat(scheduled.path("outcome").asText()).isEqualTo("started");
        assertThat(scheduled.path("execution").asText()).isEqualTo(ExpiryStreamHandlerTest.A_AT_0140);
        JsonNode warned = lines.stream().map(DecisionLogTest::parse)
                .filter(line -> "604".equals(line.path("sequenceNumber").asText())).findFirst().orElseThrow();
        assertThat(warned.path("level").asText()).isEqualTo("WARN");
        assertThat(warned.path("reason").asText()).isEqualTo("TTL_NOT_A_NUMBER");
        assertThat(warned.path("message").asText()).contains("is of type S");
    }

    @Test
    void linesNeverHoldKeyValuesOrImageContent() {
        handler.handleRequest(EventLoader.loadDynamoDbEvent("events/key-with-quotes.json"), TestLambdaContext.invocation());
        handler.handleRequest(EventLoader.loadDynamoDbEvent("events/long-string-key.json"), TestLambdaContext.invocation());

        assertThat(lines).hasSize(3);
        assertThat(lines).allSatisfy(line -> assertThat(line)
                .doesNotContain("say").doesNotContain("ppppp").doesNotContain("qqqqq").doesNotContain("private note"));
        assertThat(lines).anySatisfy(line -> assertThat(parse(line).path("reason").asText()).isEqualTo("KEY_NOT_VALID"));
    }

    @Test
    void aBatchThrottledPastItsDeadline_saysSoOnce_andLogsEachFailedRecordOnce_underAnUnreservedKey() throws Exception {
        FakeExecutions executions = new FakeExecutions();
        executions.failStarts(name -> true, new ThrottledException("StartExecution", new RuntimeException("Rate exceeded")));
        StreamsEventResponse response = throttlingHandler(executions)
                .handleRequest(EventLoader.loadDynamoDbEvent("events/mixed-batch.json"), TestLambdaContext.invocation());

        List<JsonNode> parsed = lines.stream().map(DecisionLogTest::parse).toList();
        assertThat(lines).noneSatisfy(line -> assertThat(line).contains("reserved key"));
        List<JsonNode> failed = parsed.stream().filter(line -> "failed".equals(line.path("outcome").asText())).toList();
        List<JsonNode> skipped = parsed.stream().filter(line -> "skipped".equals(line.path("outcome").asText())).toList();
        assertThat(failed).isNotEmpty();
        assertThat(parsed).filteredOn(line -> "throttled".equals(line.path("outcome").asText())).singleElement()
                .satisfies(line -> {
                    assertThat(line.path("message").asText()).contains("until the invocation's deadline");
                    assertThat(line.path("gaveUp").asInt()).isEqualTo(failed.size());
                    assertThat(line.path("throttledCalls").asInt()).isGreaterThan(failed.size());
                });
        List<String> reported = response.getBatchItemFailures().stream()
                .map(StreamsEventResponse.BatchItemFailure::getItemIdentifier).toList();
        List<String> loggedOnce = new ArrayList<>();
        failed.forEach(line -> loggedOnce.add(line.path("sequenceNumber").asText()));
        skipped.forEach(line -> loggedOnce.add(line.path("sequenceNumber").asText()));
        assertThat(loggedOnce).as("each reported record logged once").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(reported);
        assertThat(failed).allSatisfy(line -> {
            assertThat(line.path("failure").asText()).isEqualTo("ThrottledException");
            assertThat(line.has("error")).isFalse();
        });
    }

    @Test
    void aBatchThrottledBriefly_succeedsWithoutFailures_andSaysItWasThrottledOnce() throws Exception {
        FakeExecutions executions = new FakeExecutions();
        AtomicInteger starts = new AtomicInteger();
        executions.failStarts(name -> starts.incrementAndGet() <= 4,
                new ThrottledException("StartExecution", new RuntimeException("Rate exceeded")));
        StreamsEventResponse response = throttlingHandler(executions)
                .handleRequest(EventLoader.loadDynamoDbEvent("events/mixed-batch.json"), TestLambdaContext.invocation());

        assertThat(response.getBatchItemFailures()).isEmpty();
        List<JsonNode> throttled = lines.stream().map(DecisionLogTest::parse)
                .filter(line -> "throttled".equals(line.path("outcome").asText())).toList();
        assertThat(throttled).singleElement().satisfies(line -> {
            assertThat(line.path("throttledCalls").asInt()).isEqualTo(4);
            assertThat(line.path("gaveUp").asInt()).isZero();
        });
    }

    @Test
    void aFailedCallThatAwsAnswered_logsItsCodeAndStatus_notAStackTrace() throws Exception {
        FakeExecutions executions = new FakeExecutions();
        executions.failStarts(name -> true, (RuntimeException) SfnException.builder().statusCode(503).message("injected")
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("ServiceUnavailable").build()).build());
        handlerWith(executions).handleRequest(EventLoader.loadDynamoDbEvent("events/mixed-batch.json"), TestLambdaContext.invocation());

        List<JsonNode> failed = lines.stream().map(DecisionLogTest::parse)
                .filter(line -> "failed".equals(line.path("outcome").asText())).toList();
        assertThat(failed).isNotEmpty().allSatisfy(line -> {
            assertThat(line.path("failure").asText()).isEqualTo("SfnException");
            assertThat(line.path("errorCode").asText()).isEqualTo("ServiceUnavailable");
            assertThat(line.path("statusCode").asInt()).isEqualTo(503);
            assertThat(line.toString()).doesNotContain("at software.amazon").doesNotContain("stack");
        });
    }

    @Test
    void aFailureOfAnyOtherKind_keepsItsStackTrace() throws Exception {
        FakeExecutions executions = new FakeExecutions();
        executions.failStarts(name -> true, new IllegalStateException("a bug"));
        handlerWith(executions).handleRequest(EventLoader.loadDynamoDbEvent("events/mixed-batch.json"), TestLambdaContext.invocation());

        List<String> failed = lines.stream().filter(line -> "failed".equals(parse(line).path("outcome").asText())).toList();
        assertThat(failed).isNotEmpty().allSatisfy(line -> assertThat(line).contains("IllegalStateException").contains("DecisionLogTest"));
    }

    private ExpiryStreamHandler handlerWith(FakeExecutions executions) throws Exception {
        handler.close();
        handler = new ExpiryStreamHandler(parts().executions(executions)
                .clock(Clock.fixed(ExpiryStreamHandlerTest.NOW, ZoneOffset.UTC)).metrics(MetricSink.DISCARD).build());
        return handler;
    }

    private ExpiryStreamHandler throttlingHandler(FakeExecutions executions) throws Exception {
        handler.close();
        SteppingClock clock = new SteppingClock(ExpiryStreamHandlerTest.NOW);
        handler = new ExpiryStreamHandler(parts().executions(executions).clock(clock)
                .backoff(new ThrottleBackoff(clock, clock, new Random(7))).metrics(MetricSink.DISCARD).build());
        return handler;
    }

    private static FunctionParts.Builder parts() {
        return FunctionParts.builder(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, ExpiryStreamHandlerTest.STATE_MACHINE,
                StreamWiring.ENV_TTL_ATTRIBUTE, "ttl"));
    }

    private static JsonNode parse(String line) {
        try {
            return JSON.readTree(line);
        } catch (java.io.IOException e) {
            throw new AssertionError("not a JSON line: " + line, e);
        }
    }
}
