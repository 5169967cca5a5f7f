package dev.punctual.local.stepfunctions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.retention.Retention;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ManualTimer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Closed executions past the engine's retention, through the real SDK client: forgotten by count or by
 * age, an execution answers {@code ExecutionDoesNotExist} to DescribeExecution and GetExecutionHistory
 * and leaves ListExecutions, as an execution past AWS's 90 days does; the ones still kept are served.
 */
class ClosedExecutionRetentionTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String PASS = """
            {"StartAt":"Done","States":{"Done":{"Type":"Pass","End":true}}}""";
    private static final int KEPT = 3;
    private static final Duration AGE = Duration.ofMinutes(10);

    private ManualTimer timer;
    private StepFunctionsEngine engine;
    private StepFunctionsServer server;
    private SfnClient sfn;
    private String machine;

    @BeforeEach
    void start() {
        timer = ManualTimer.startingAt(START);
        engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .timer(timer)
                .closedExecutionRetention(Retention.of(KEPT, AGE))
                .build();
        server = StepFunctionsServer.start(engine, new InetSocketAddress("127.0.0.1", 0));
        sfn = SfnClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(Apache5HttpClient.create())
                .build();
        machine = sfn.createStateMachine(b -> b.name("passes").definition(PASS).roleArn(ROLE)).stateMachineArn();
    }

    @AfterEach
    void stop() {
        sfn.close();
        server.close();
        engine.close();
    }

    private String runToSuccess(String name) {
        String arn = sfn.startExecution(b -> b.stateMachineArn(machine).name(name).input("{}")).executionArn();
        eventually(() -> sfn.describeExecution(b -> b.executionArn(arn)).status() == ExecutionStatus.SUCCEEDED);
        return arn;
    }

    @Test
    void describeAndHistory_whenMoreClosedThanTheCount_forgetTheOldestAsAwsDoesPastRetention() {
        String oldest = runToSuccess("first");
        List<String> newer = List.of(runToSuccess("second"), runToSuccess("third"), runToSuccess("fourth"));

        assertThatThrownBy(() -> sfn.describeExecution(b -> b.executionArn(oldest)))
                .isInstanceOf(ExecutionDoesNotExistException.class);
        assertThatThrownBy(() -> sfn.getExecutionHistory(b -> b.executionArn(oldest)))
                .isInstanceOf(ExecutionDoesNotExistException.class);
        for (String arn : newer) {
            assertThat(sfn.describeExecution(b -> b.executionArn(arn)).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(sfn.getExecutionHistory(b -> b.executionArn(arn)).events()).isNotEmpty();
        }
        assertThat(sfn.listExecutions(b -> b.stateMachineArn(machine)).executions())
                .extracting(ExecutionListItem::name).containsExactlyInAnyOrder("second", "third", "fourth");
        assertThat(engine.closedExecutionsKept()).isEqualTo(KEPT);
        assertThat(engine.closedExecutionsForgotten()).isEqualTo(1);
    }

    @Test
    void describe_whenClosedLongerThanTheAge_answersExecutionDoesNotExist_evenWithNothingElseHappening() {
        String arn = runToSuccess("aging");

        timer.advance(AGE.minusSeconds(1));
        assertThat(sfn.describeExecution(b -> b.executionArn(arn)).status()).isEqualTo(ExecutionStatus.SUCCEEDED);

        timer.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> sfn.describeExecution(b -> b.executionArn(arn)))
                .isInstanceOf(ExecutionDoesNotExistException.class);
        assertThatThrownBy(() -> sfn.getExecutionHistory(b -> b.executionArn(arn)))
                .isInstanceOf(ExecutionDoesNotExistException.class);
        assertThat(sfn.listExecutions(b -> b.stateMachineArn(machine)).executions()).isEmpty();
        assertThat(engine.closedExecutionsKept()).isZero();
        assertThat(engine.closedExecutionsForgotten()).isEqualTo(1);
    }

    @Test
    void age_countsFromEachExecutionsClose_soALaterOneOutlivesAnEarlierOne() {
        String early = runToSuccess("early");
        timer.advance(Duration.ofMinutes(4));
        String late = runToSuccess("late");

        timer.advance(AGE.minusMinutes(4));

        assertThatThrownBy(() -> sfn.describeExecution(b -> b.executionArn(early)))
                .isInstanceOf(ExecutionDoesNotExistException.class);
        assertThat(sfn.describeExecution(b -> b.executionArn(late)).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        timer.advance(Duration.ofMinutes(4));
        assertThatThrownBy(() -> sfn.describeExecution(b -> b.executionArn(late)))
                .isInstanceOf(ExecutionDoesNotExistException.class);
    }

    private static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Condition not met within 5 s");
            }
            Thread.onSpinWait();
        }
    }
}
