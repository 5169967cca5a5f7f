package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.statemachine.Arns;
import dev.punctual.testing.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.HistoryEventType;

/**
 * Kills a durable engine process with SIGKILL while executions wait, restarts it on the same data
 * directory, and checks every wait still ends: none early, none twice, finished ones untouched.
 * Real time is unavoidable here (two processes and a wall clock); the waits are a few seconds.
 */
class DurabilityProcessTest {

    /**
     * How long the engine in the other process may add nothing to an execution's history, once the execution
     * is due, before a wait gives up: far beyond a loaded machine's pause, short beside a hang.
     */
    private static final Duration STALL = Duration.ofSeconds(15);

    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String DEFINITION = """
            {"StartAt":"Hold","States":{
              "Hold":{"Type":"Wait","TimestampPath":"$.at","Next":"Record"},
              "Record":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
                        "Parameters":{"FunctionName":"record"},"ResultPath":"$.recorded","End":true}}}""";

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void killMinusNineMidWait_thenRestart_everyWaitCompletesOnceAndNeverEarly() throws Exception {
        Path data = dir.resolve("data");
        Path calls = dir.resolve("calls.log");
        Process first = launch(data, calls);
        Map<String, Instant> dueAt = new HashMap<>();
        List<String> immediate = new ArrayList<>();
        Map<String, Instant> immediateStops = new HashMap<>();
        String machine;
        try (SfnClient sfn = client(port(first))) {
            machine = sfn.createStateMachine(b -> b.name("durable").definition(DEFINITION).roleArn(ROLE))
                    .stateMachineArn();
            Instant base = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(5);
            for (int i = 0; i < 30; i++) {
                // Whole seconds: Wait truncates a timestamp's milliseconds, as AWS does.
                Instant at = base.plusSeconds(i % 3);
                String name = "wait-" + i;
                dueAt.put(name, at);
                sfn.startExecution(b -> b.stateMachineArn(machine).name(name).input("{\"at\":\"" + at + "\"}"));
            }
            for (int i = 0; i < 5; i++) {
                String name = "now-" + i;
                immediate.add(name);
                sfn.startExecution(b -> b.stateMachineArn(machine).name(name)
                        .input("{\"at\":\"2020-01-01T00:00:00Z\"}"));
            }
            for (String name : immediate) {
                DescribeExecutionResponse done = awaitClosed(sfn, executionArn(machine, name), Instant.MIN);
                assertThat(done.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
                immediateStops.put(name, done.stopDate());
            }
            assertThat(Instant.now()).isBefore(base);
        }
        first.destroyForcibly();
        assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();

        Process second = launch(data, calls);
        try (SfnClient sfn = client(port(second))) {
            for (Map.Entry<String, Instant> due : dueAt.entrySet()) {
                String arn = executionArn(machine, due.getKey());
                DescribeExecutionResponse done = awaitClosed(sfn, arn, due.getValue());
                assertThat(done.status()).as(due.getKey()).isEqualTo(ExecutionStatus.SUCCEEDED);
                List<HistoryEvent> events = sfn.getExecutionHistory(b -> b.executionArn(arn)).events();
                HistoryEvent waitExited = events.stream().filter(e -> e.type() == HistoryEventType.WAIT_STATE_EXITED)
                        .findFirst().orElseThrow();
                assertThat(waitExited.timestamp()).as("wake-up of " + due.getKey()).isAfterOrEqualTo(due.getValue());
                assertThat(events.stream().filter(e -> e.type() == HistoryEventType.EXECUTION_SUCCEEDED).count())
                        .isEqualTo(1);
            }
            for (String name : immediate) {
                DescribeExecutionResponse still = sfn.describeExecution(b -> b.executionArn(executionArn(machine, name)));
                assertThat(still.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
                assertThat(still.stopDate()).isEqualTo(immediateStops.get(name));
            }
        }
        Map<String, Long> sideEffects = Files.readAllLines(calls).stream()
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(sideEffects).hasSize(35).allSatisfy((name, count) -> assertThat(count).as(name).isEqualTo(1L));
    }

    private Process launch(Path data, Path calls) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                DurableEngineMain.class.getName(), data.toString(), calls.toString())
                .redirectError(dir.resolve("engine-" + processes.size() + ".err").toFile())
                .start();
        processes.add(p);
        return p;
    }

    private static int port(Process p) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("READY ")) {
                return Integer.parseInt(line.split(" ")[1]);
            }
        }
        throw new IllegalStateException("The engine process ended without serving");
    }

    private static SfnClient client(int port) {
        return SfnClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(Apache5HttpClient.create())
                .build();
    }

    private static String executionArn(String machine, String name) {
        return Arns.execution(machine, name);
    }

    /**
     * Waits until the execution has closed, for as long as its history keeps growing: fails only when, from
     * {@code due} on (its Wait may rightly rest until then), no event has been added for {@link #STALL}.
     */
    private static DescribeExecutionResponse awaitClosed(SfnClient sfn, String arn, Instant due) {
        Await.untilProgressingAfter(() -> "execution " + arn + " closed", due, STALL, Duration.ofMillis(50),
                () -> sfn.getExecutionHistory(b -> b.executionArn(arn)).events().size(),
                () -> sfn.describeExecution(b -> b.executionArn(arn)).status() != ExecutionStatus.RUNNING);
        return sfn.describeExecution(b -> b.executionArn(arn));
    }
}
