package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ManualTimer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code punctual pending} against a real Step Functions API: pending expirations sorted by expiry, and
 * failed executions with their error, so a delete that failed beyond its retries is never silent.
 */
class PendingCommandTest {

    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");

    private ManualTimer timer;
    private StepFunctionsEngine local;
    private StepFunctionsServer server;
    private String endpoint;

    @BeforeEach
    void start() {
        timer = ManualTimer.startingAt(NOW);
        local = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of())
                .timer(timer)
                .build();
        server = StepFunctionsServer.start(local, new InetSocketAddress("127.0.0.1", 0));
        endpoint = "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stop() {
        server.close();
        local.close();
    }

    @Test
    void pending_listsRunningExecutionsSortedByExpiry_andFilteredByTable() {
        String machine = local.createStateMachine("waits",
                "{\"StartAt\":\"W\",\"States\":{\"W\":{\"Type\":\"Wait\",\"TimestampPath\":\"$.expireAt\",\"End\":true}}}",
                "arn:aws:iam::123456789012:role/r", "STANDARD").stateMachineArn();
        start(machine, "late", "orders", "2026-11-21T13:00:00Z");
        start(machine, "soon", "orders", "2026-11-21T12:00:30Z");
        start(machine, "other", "sessions", "2026-11-21T12:00:10Z");

        Result result = run("pending", "--sfn-endpoint", endpoint, "--state-machine-arn", machine, "--table", "orders");

        assertThat(result.exitCode()).as(result.err()).isZero();
        List<String> rows = result.out().lines().toList();
        assertThat(rows.get(0)).startsWith("EXPIRES AT");
        assertThat(rows.get(1)).startsWith("2026-11-21T12:00:30Z").contains("orders").contains("soon");
        assertThat(rows.get(2)).startsWith("2026-11-21T13:00:00Z").contains("late");
        assertThat(result.out()).doesNotContain("sessions").contains("2 pending expiration(s)");
    }

    @Test
    void pendingStatusFailed_showsTheFailedExecutionWithItsError() {
        String machine = local.createStateMachine("fails",
                "{\"StartAt\":\"Delete\",\"States\":{\"Delete\":{\"Type\":\"Fail\","
                        + "\"Error\":\"DynamoDB.InternalServerError\",\"Cause\":\"retries exhausted\"}}}",
                "arn:aws:iam::123456789012:role/r", "STANDARD").stateMachineArn();
        start(machine, "broken", "orders", "2026-11-21T12:00:00Z");

        Result running = run("pending", "--sfn-endpoint", endpoint, "--state-machine-arn", machine);
        Result failed = run("pending", "--sfn-endpoint", endpoint, "--state-machine-arn", machine, "--status", "FAILED");

        assertThat(running.out()).contains("0 pending expiration(s)");
        assertThat(failed.exitCode()).as(failed.err()).isZero();
        assertThat(failed.out()).contains("broken").contains("DynamoDB.InternalServerError").contains("1 failed expiration(s)");
    }

    @Test
    void pending_whenNothingListens_saysWhatToStart() {
        server.close();

        Result result = run("pending", "--sfn-endpoint", endpoint);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("is `punctual local` running");
    }

    @Test
    void pending_whenLimitIsZero_refusesIt() {
        Result result = run("pending", "--sfn-endpoint", endpoint, "--limit", "0");

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.err()).contains("--limit must be at least 1");
    }

    private void start(String machine, String name, String table, String expireAt) {
        local.startExecution(machine, name, "{\"table\":\"" + table + "\",\"key\":{\"id\":{\"S\":\"" + name
                + "\"}},\"ttlAttribute\":\"ttl\",\"ttl\":\"1\",\"expireAt\":\"" + expireAt + "\"}").join();
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = PunctualCommand.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(exitCode, out.toString(), err.toString());
    }

    private record Result(int exitCode, String out, String err) {
    }
}
