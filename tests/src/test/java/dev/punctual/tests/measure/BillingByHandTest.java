package dev.punctual.tests.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.punctual.functions.DynamoDbScheduleIndex;
import dev.punctual.local.billing.CostMeter;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.ExecutionLog;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketInput;
import dev.punctual.windowed.BucketLevel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cost report's meter against a bill worked out by hand, for every service windowed mode bills, on
 * the real runtime and a manual timer: three items in one minute (two due in one second, one two seconds
 * later), one minute bucket, one runner whose first step fails once. What AWS would bill is counted from
 * the design (each call the runner makes, the seconds it runs) and priced from the price pages, written
 * out here rather than read from the runtime's {@code Prices}, so a wrong count or a wrong price fails.
 */
class BillingByHandTest {

    // us-east-1, as the pricing pages state them (DOMAIN.md's table).
    private static final double STATE_TRANSITION = 0.025 / 1_000;
    private static final double EXPRESS_REQUEST = 1.00 / 1_000_000;
    private static final double EXPRESS_GB_SECOND = 0.00001667;
    private static final double LAMBDA_REQUEST = 0.20 / 1_000_000;
    private static final double LAMBDA_GB_SECOND = 0.0000133334;
    private static final double WRITE_UNIT = 0.625 / 1_000_000;
    private static final double READ_UNIT = 0.125 / 1_000_000;
    private static final double LOG_GB = 0.50;

    private ManualTimer timer;
    private LocalRuntime runtime;

    @BeforeEach
    void start() {
        timer = ManualTimer.startingAt(Instant.now());
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED).withTimer(timer));
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void oneMinutesRunner_isBilledWhatItsStepsAndSecondsCost_forStepFunctionsLambdaDynamoDbAndLogs() {
        ExpiryTable table = ExpiryTable.create(runtime, "billing");
        runtime.observations().deletions().track(table.name());
        long minute = BucketLevel.MINUTE.startOf(timer.clock().instant().getEpochSecond()) + 180;
        long due = minute + 30;
        Bucket bucket = Bucket.containing(table.name(), BucketLevel.MINUTE, due);
        Instant wake = BucketInput.planned(bucket, ExpiryTable.TTL, timer.clock().instant(), due).wakeAt();
        assertThat(wake).isEqualTo(Instant.ofEpochSecond(due - 11));
        // Written in this order, so the first record the handler sees is due at `due` however the stream's
        // reads split the batch: the party that starts the bucket plans its wake from the earliest TTL it has
        // seen, and a first read holding only c would wake the bucket at due - 9 instead.
        Map<String, Long> ttls = new LinkedHashMap<>();
        ttls.put("a", due);
        ttls.put("b", due);
        ttls.put("c", due + 2);
        CostMeter.Snapshot before = runtime.observations().costs();
        ExpiryTable.batchWrite(runtime.dynamoDb(), table.name(), ttls);
        awaitMovingTime("the three records handled", () -> {
            var metrics = runtime.streamPoller().tableMetrics().get(table.name());
            return metrics != null && metrics.recordsHandled() >= 3;
        });
        assertThat(bucketWakes()).as("the bucket was planned for its earliest item, as the test plans it").containsExactly(wake);
        // From here on only the runner works: the stream's REMOVE records are not read meanwhile.
        runtime.streamPoller().setEnabled(false);
        runtime.faults().lambda().failNextAt("state-machine.Invoke", 1, "Lambda.ServiceException");
        CostMeter.Snapshot indexed = runtime.observations().costs();

        // Each instant is reached exactly, and what falls due there is done before time moves on.
        timer.advanceTo(wake);
        await("the runner's first step failed", () -> !runtime.stepFunctionsEngine().executionLog().latest().isEmpty());
        // The retry is put on the timer a second or less (full jitter) after the engine handles the failure,
        // which may be a moment after the failure's log line: moving straight to wake + 1 s could leave it behind
        // the clock for good. Time moves on in small steps until the retry has run, never past wake + 2 s.
        awaitInSmallSteps("the runner begun (its retry, within a second, full jitter, ran)", wake.plusSeconds(2),
                () -> mark(bucket).started() && waiting());
        timer.advanceTo(Instant.ofEpochSecond(due - 1));
        await("the first second prepared", () -> mark(bucket).through() == due && waiting());
        timer.advanceTo(Instant.ofEpochSecond(due));
        await("a and b deleted", () -> runtime.observations().deletions().count(table.name()) == 2 && waiting());
        timer.advanceTo(Instant.ofEpochSecond(due + 1));
        await("the last second prepared", () -> mark(bucket).through() == due + 2 && waiting());
        timer.advanceTo(Instant.ofEpochSecond(due + 2));
        await("the runner done and its bucket closed", () -> runtime.stepFunctionsEngine().runningExpressExecutions().isEmpty()
                && runtime.stepFunctionsEngine().openExecutions() == 0);
        CostMeter.Snapshot run = runtime.observations().costs().minus(indexed);

        CostMeter.Snapshot whole = runtime.observations().costs().minus(before);

        // Step Functions: one Standard bucket, two transitions (its Wait, its Task); one Express runner from its
        // wake to its last second, 13 s, at 64 MB.
        assertThat(whole.transitions()).isEqualTo(2);
        assertThat(run.transitions()).as("the Task, at the wake").isEqualTo(1);
        assertThat(whole.expressRequests()).isEqualTo(1);
        assertThat(run.expressGbSeconds()).isCloseTo(13 * 64 / 1024.0, within(1e-9));
        // Lambda: five steps ran (begin; prepare and delete each of the two seconds); the failed try never ran.
        assertThat(run.lambdaInvocations()).isEqualTo(5);
        assertThat(run.lambdaGbSeconds()).isPositive();
        // DynamoDB, the runner's own calls: the mark raised three times (begin, each second) and each read's
        // next recorded three times, six writes of one unit; three reads of what comes next and two of a
        // second's entries, consistent and under 4 KB, one unit each. The three deletes are the items' own.
        assertThat(run.writeUnits()).isEqualTo(6);
        assertThat(run.readUnits()).isEqualTo(5);
        assertThat(run.itemDeleteWriteUnits()).isEqualTo(3);
        // CloudWatch Logs: the runner logs at ERROR, so only the failed try's TaskFailed line.
        assertThat(runtime.stepFunctionsEngine().executionLog().latest()).singleElement()
                .satisfies(line -> assertThat(line.json()).contains("\"type\":\"TaskFailed\""));
        long logBytes = runtime.stepFunctionsEngine().executionLog().latest().stream().map(ExecutionLog.Line::json)
                .mapToLong(json -> json.getBytes(StandardCharsets.UTF_8).length).sum();
        assertThat(run.logBytes()).isEqualTo(logBytes);

        double byHand = STATE_TRANSITION * 1 + EXPRESS_REQUEST * 1 + EXPRESS_GB_SECOND * 13 * 64 / 1024.0
                + LAMBDA_REQUEST * 5 + LAMBDA_GB_SECOND * run.lambdaGbSeconds()
                + WRITE_UNIT * 6 + READ_UNIT * 5
                + LOG_GB * logBytes / (1024.0 * 1024 * 1024);
        assertThat(run.punctualUsd()).isCloseTo(byHand, within(1e-12));
        assertThat(run.stepFunctionsUsd()).isCloseTo(0.000025 + 0.000001 + 0.00001667 * 0.8125, within(1e-12));
        assertThat(run.dynamoDbUsd()).isCloseTo(6 * 0.000000625 + 5 * 0.000000125, within(1e-15));
        assertThat(run.itemDeleteUsd()).isCloseTo(3 * 0.000000625, within(1e-15));
    }

    /** Whether the runner's step has returned and it waits for the next (so time may move on). */
    private boolean waiting() {
        return runtime.stepFunctionsEngine().runningExpressExecutions().stream()
                .anyMatch(runner -> runner.state().equals("WaitForNextStep"));
    }

    /**
     * Each bucket execution with its status and its last history events: what a failed wait says of where
     * the bucket stood (still in its Wait, its Task retried on the timer, or its runner never started).
     */
    private List<String> buckets() {
        return bucketExecutions().stream()
                .map(bucket -> bucket.name() + " " + bucket.status() + " " + runtime.stepFunctionsEngine()
                        .getExecutionHistory(bucket.executionArn(), 4, null, true).items().stream()
                        .map(event -> event.type() + "@" + event.timestamp()).toList())
                .toList();
    }

    /** The bucket state machine's executions (the test starts one; ten would already be wrong). */
    private List<ExecutionSummary> bucketExecutions() {
        String machine = runtime.mode().windowed().orElseThrow().bucketStateMachineArn();
        return runtime.stepFunctionsEngine().listExecutions(machine, null, 10, null).items();
    }

    /** When each bucket execution wakes, read from its input as it was started. */
    private List<Instant> bucketWakes() {
        return bucketExecutions().stream()
                .map(bucket -> BucketInput.wakeAtIn(runtime.stepFunctionsEngine().describeExecution(bucket.executionArn()).input()))
                .toList();
    }

    private RunnerMarkView mark(Bucket bucket) {
        var mark = new DynamoDbScheduleIndex(runtime.dynamoDb(), ScheduleIndexTable.LOCAL_TABLE_NAME).runnerMark(bucket);
        return new RunnerMarkView(mark.started(), mark.through());
    }

    private record RunnerMarkView(boolean started, long through) {
    }

    /**
     * Waits for {@code condition} without moving time: what is due now (a Wait the runner scheduled for the
     * instant already reached) runs, on the runtime's threads.
     */
    private void await(String what, BooleanSupplier condition) {
        Await.until(() -> what + "; at " + timer.clock().instant() + " (next wake-up " + timer.nextWakeUp() + "), runners "
                        + runtime.stepFunctionsEngine().runningExpressExecutions() + ", buckets " + buckets(),
                Duration.ofSeconds(20), () -> {
            timer.runDue();
            return condition.getAsBoolean();
        });
    }

    /** Waits for {@code condition}, moving time 10 ms at each check and never past {@code cap}. */
    private void awaitInSmallSteps(String what, Instant cap, BooleanSupplier condition) {
        Await.until(() -> what + "; at " + timer.clock().instant(), Duration.ofSeconds(20), () -> {
            Instant next = timer.clock().instant().plusMillis(10);
            timer.advanceTo(next.isAfter(cap) ? cap : next);
            return condition.getAsBoolean();
        });
    }

    private void awaitMovingTime(String what, BooleanSupplier condition) {
        Await.until(() -> what, Duration.ofSeconds(30), () -> {
            timer.advance(Duration.ofMillis(100));
            return condition.getAsBoolean();
        });
    }
}
