package dev.punctual.local.stepfunctions.quotas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.stepfunctions.api.InProcessTransport;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.HistoryEvent;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ManualTimer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.SfnClientBuilder;
import software.amazon.awssdk.services.sfn.model.ExecutionLimitExceededException;
import software.amazon.awssdk.services.sfn.model.SfnException;

/**
 * The quotas through the real SDK v2 client with its retries off, over HTTP and in-process, on the real
 * interpreter and a manual clock: exact counts.
 */
class QuotaEnforcementTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String WAIT_FROM_INPUT = """
            {"StartAt":"Hold","States":{"Hold":{"Type":"Wait","SecondsPath":"$.seconds","End":true}}}""";
    private static final String THREE_PASSES = """
            {"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"C"},
              "C":{"Type":"Pass","End":true}}}""";

    private final ManualTimer timer = ManualTimer.startingAt(T0);
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private StepFunctionsEngine local;
    private Throttles throttles;

    @AfterEach
    void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private void startEngine(QuotaSettings quotas) {
        throttles = Throttles.of(quotas, timer.clock());
        local = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run, throttles.transitions()))
                .timer(timer)
                .maxOpenExecutions(quotas.openExecutions())
                .build();
        closeables.add(local);
    }

    private SfnClient overHttp() {
        StepFunctionsServer server = StepFunctionsServer.start(local, throttles,
                new InetSocketAddress("127.0.0.1", 0));
        closeables.add(server);
        return client(b -> b.endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .httpClient(Apache5HttpClient.create()));
    }

    private SfnClient inProcess() {
        return client(b -> b.endpointOverride(URI.create("http://127.0.0.1:1"))
                .httpClient(new InProcessTransport(local, throttles)));
    }

    private SfnClient client(Function<SfnClientBuilder, SfnClientBuilder> transport) {
        SfnClient client = transport.apply(SfnClient.builder())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
        closeables.add(client);
        return client;
    }

    @Test
    void startExecution_pastTheBucket_failsWithThrottlingExceptionOverHttpAndInProcessAlike() {
        startEngine(QuotaSettings.awsDefaults().withOverride("start-execution-burst=10")
                .withOverride("start-execution-rate=2"));
        SfnClient http = overHttp();
        SfnClient sameProcess = inProcess();
        String machine = http.createStateMachine(b -> b.name("m").definition(WAIT_FROM_INPUT).roleArn(ROLE))
                .stateMachineArn();

        List<SfnException> refused = new ArrayList<>();
        int accepted = starts(http, machine, "a", 8, refused) + starts(sameProcess, machine, "b", 7, refused);
        assertThat(accepted).as("the burst, shared by both transports").isEqualTo(10);
        timer.advance(Duration.ofMillis(3_500));
        accepted += starts(sameProcess, machine, "c", 10, refused);
        assertThat(accepted).as("burst + rate x elapsed = 10 + 2 x 3.5").isEqualTo(17);

        assertThat(refused).hasSize(25 - 17).allSatisfy(e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.isThrottlingException()).as("the SDK classifies it as throttling, so it retries it").isTrue();
        });
        assertThat(throttles.counts()).isEqualTo(new ThrottleCounts(8, 0, 0));
        assertThat(local.openExecutions()).isEqualTo(17);
    }

    @Test
    void throttledRequest_answersTheAwsJson10ErrorShape() throws Exception {
        startEngine(QuotaSettings.awsDefaults().withOverride("stop-execution-burst=1"));
        SfnClient http = overHttp();
        String machine = http.createStateMachine(b -> b.name("m").definition(WAIT_FROM_INPUT).roleArn(ROLE))
                .stateMachineArn();
        String arn = http.startExecution(b -> b.stateMachineArn(machine).name("x").input("{\"seconds\":60}"))
                .executionArn();
        http.stopExecution(b -> b.executionArn(arn));
        int port = Integer.parseInt(http.serviceClientConfiguration().endpointOverride().orElseThrow().getPort() + "");
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder()
                .uri(URI.create("http://127.0.0.1:" + port + "/"))
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", "AWSStepFunctions.StopExecution")
                .POST(HttpRequest.BodyPublishers.ofString("{\"executionArn\":\"" + arn + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("X-Amzn-ErrorType")).hasValue("ThrottlingException");
        assertThat(response.body()).startsWith("{\"__type\":\"ThrottlingException\",\"message\":\"Rate exceeded");
        assertThat(throttles.counts().stopExecution()).isEqualTo(1);
    }

    @Test
    void openExecutions_atTheQuota_refusesTheNextUntilOneCloses() {
        startEngine(QuotaSettings.awsDefaults().withOverride("open-executions=50"));
        SfnClient sfn = inProcess();
        String machine = sfn.createStateMachine(b -> b.name("m").definition(WAIT_FROM_INPUT).roleArn(ROLE))
                .stateMachineArn();
        sfn.startExecution(b -> b.stateMachineArn(machine).name("short").input("{\"seconds\":10}"));
        for (int i = 1; i < 50; i++) {
            String name = "long-" + i;
            sfn.startExecution(b -> b.stateMachineArn(machine).name(name).input("{\"seconds\":600}"));
        }
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("51st").input("{\"seconds\":1}")))
                .isInstanceOf(ExecutionLimitExceededException.class).hasMessageContaining("50 executions are open");

        timer.advance(Duration.ofSeconds(10));
        assertThat(local.openExecutions()).isEqualTo(49);
        assertThat(sfn.startExecution(b -> b.stateMachineArn(machine).name("51st").input("{\"seconds\":1}"))
                .executionArn()).endsWith(":51st");
    }

    @Test
    void stateTransitions_pastTheBucket_areDelayedOnTheTimerNotFailed() {
        startEngine(QuotaSettings.awsDefaults().withOverride("state-transition-burst=5")
                .withOverride("state-transition-rate=1"));
        var engine = local;
        String machine = engine.createStateMachine("m", THREE_PASSES, ROLE, null).stateMachineArn();
        List<String> arns = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            arns.add(engine.startExecution(machine, "e" + i, "{}").join().executionArn());
        }
        assertThat(engine.describeExecution(arns.get(0)).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(engine.describeExecution(arns.get(2)).status()).isEqualTo(ExecutionStatus.RUNNING);

        timer.advance(Duration.ofSeconds(10));
        for (String arn : arns) {
            assertThat(engine.describeExecution(arn).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        }
        assertThat(throttles.counts().stateTransitions()).as("9 transitions, a burst of 5").isEqualTo(4);
        List<HistoryEvent> last = engine.getExecutionHistory(arns.get(2), 100, null, false).items();
        assertThat(last).filteredOn(e -> e.type().equals("PassStateEntered")).extracting(HistoryEvent::timestamp)
                .as("one token a second once the burst is spent").containsExactly(T0.plusSeconds(2),
                        T0.plusSeconds(3), T0.plusSeconds(4));
    }

    private static int starts(SfnClient sfn, String machine, String prefix, int count, List<SfnException> refused) {
        int accepted = 0;
        for (int i = 0; i < count; i++) {
            String name = prefix + i;
            try {
                sfn.startExecution(b -> b.stateMachineArn(machine).name(name).input("{\"seconds\":600}"));
                accepted++;
            } catch (SfnException e) {
                refused.add(e);
            }
        }
        return accepted;
    }
}
