package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.functions.DynamoDbScheduleIndex;
import dev.punctual.local.events.EventRules;
import dev.punctual.local.modes.WindowedLocal;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.ExecutionStatusEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.ManualTimeRun;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import dev.punctual.windowed.BucketWorker;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * A minute bucket whose execution ended before it finished (stopped, or failed because its runner
 * kept failing), on the real runtime and a manual timer: the
 * engine publishes the status change, the runtime's rule delivers it to the bucket function, and the
 * bucket's next generation ({@code <name>-g1}) deletes its items, each once and none early, with
 * nothing dead-lettered. Nobody else comes back to these buckets: no later write needs them. When the
 * status change never arrives, the sweep finds the bucket within its interval.
 *
 * <p>Each test has its own runtime on its own manual timer: they run side by side.
 */
@Execution(ExecutionMode.CONCURRENT)
class HealedBucketEndToEndTest {

    /** The timer's first instant, when the runtime scheduled its sweep. */
    private Instant started;
    private ManualTimer timer;
    private LocalRuntime runtime;
    private ManualTimeRun run;

    @BeforeEach
    void start() {
        started = Instant.now();
        timer = ManualTimer.startingAt(started);
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED).withTimer(timer));
        run = new ManualTimeRun(runtime, timer);
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void bucketStoppedWithStopExecutionBeforeItSealed_isReplaced_andItsItemsExpireOnceAtTheirTtl() {
        ExpiryTable table = trackedTable("heal-stop");
        Map<String, Long> ttls = indexedInOneBucket(table, "a", "b", "c");
        Bucket bucket = bucketOf(table, ttls);
        assertThat(status(bucket.executionName())).contains(ExecutionStatus.RUNNING);

        try (SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            sfn.stopExecution(r -> r.executionArn(arn(bucket.executionName())).error("Operator").cause("stopped by hand"));
        }
        run.awaitMovingTime(() -> "the successor started", Duration.ofMillis(100), Duration.ofSeconds(30),
                () -> status(bucket.executionName() + "-g1").isPresent());
        assertThat(status(bucket.executionName())).contains(ExecutionStatus.ABORTED);
        assertThat(index().runnerMark(bucket).started()).as("stopped before its runner began").isFalse();
        assertThat(ManualTimeRun.left(table, ttls)).as("nothing deleted before the TTL").hasSize(3);

        expireAndCheck(table, ttls, bucket);
    }

    @Test
    void bucketThatFailedAfterSealing_isReplaced_andItsItemsExpireOnce() {
        ExpiryTable table = trackedTable("heal-fail");
        Map<String, Long> ttls = indexedInOneBucket(table, "x", "y", "z");
        Bucket bucket = bucketOf(table, ttls);
        int faults = failEveryDeleteOfTheFirstExecution(ttls);

        run.awaitMovingTime(() -> "the first execution failed; " + status(bucket.executionName()), Duration.ofSeconds(1),
                Duration.ofMinutes(5), () -> status(bucket.executionName()).filter(ExecutionStatus.FAILED::equals).isPresent());
        assertThat(index().runnerMark(bucket).through()).as("its runner sealed the items' second before it failed")
                .isEqualTo(ttls.values().iterator().next());
        assertThat(runtime.faults().dynamoDb().injected()).isEqualTo(faults);

        expireAndCheck(table, ttls, bucket);
    }

    @Test
    void bucketThatFailedAfterSealing_whoseStatusChangeNeverArrives_isReplacedByTheSweep() {
        ExpiryTable table = trackedTable("heal-sweep");
        Map<String, Long> ttls = indexedInOneBucket(table, "p", "q", "r");
        Bucket bucket = bucketOf(table, ttls);
        failEveryDeleteOfTheFirstExecution(ttls);
        // The status change's delivery and both of its retries fail: the event is dropped, as a lost one would be.
        runtime.faults().lambda().failNextAt(WindowedLocal.HEALING_RULE + ".Invoke", 1 + EventRules.RETRY_DELAYS.size(),
                "Lambda.ServiceException");

        run.awaitMovingTime(() -> "the first execution failed", Duration.ofSeconds(1), Duration.ofMinutes(5),
                () -> status(bucket.executionName()).filter(ExecutionStatus.FAILED::equals).isPresent());
        Instant failed = describe(bucket.executionName()).stopDate();
        // The sweep runs as the runtime starts and every interval after, on the runtime's timer: the first run
        // that can see the failure is the first at or after it. Time moves up to a second before that run (the
        // status change's deliveries fail meanwhile), then to the run itself, and holds there until the run is
        // done, so the successor's start is the sweep's instant exactly, however slow the machine.
        Instant sweep = started.plus(ExecutionStatusEvents.SWEEP_INTERVAL.multipliedBy(
                (Duration.between(started, failed).toMillis() + ExecutionStatusEvents.SWEEP_INTERVAL.toMillis() - 1)
                        / ExecutionStatusEvents.SWEEP_INTERVAL.toMillis()));
        assertThat(Duration.between(failed, sweep)).as("the next sweep, within an interval").isLessThanOrEqualTo(
                ExecutionStatusEvents.SWEEP_INTERVAL);
        if (run.now().isBefore(sweep)) {
            Instant before = sweep.minusSeconds(1);
            Await.until(() -> "the status change dropped, or a second before the sweep; at " + run.now(), Duration.ofMinutes(1), () -> {
                Instant next = run.now().plusSeconds(10);
                timer.advanceTo(next.isAfter(before) ? before : next);
                return runtime.observations().eventRules().dropped() == 1 || !run.now().isBefore(before);
            });
            assertThat(status(bucket.executionName() + "-g1")).as("no successor before the sweep: nobody came back").isEmpty();
            timer.advanceTo(sweep);
            Await.until("the sweep started the successor", Duration.ofMinutes(1), () -> {
                timer.runDue();
                return status(bucket.executionName() + "-g1").isPresent();
            });
            assertThat(describe(bucket.executionName() + "-g1").startDate()).as("started by the sweep, at its instant (in ms)")
                    .isEqualTo(sweep.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        } else {
            // Time overshot the sweep while the machine was slow to fail the first execution: the sweep has run,
            // at an instant the test did not hold, and its successor started at or after it.
            run.awaitMovingTime(() -> "the sweep started the successor", Duration.ofSeconds(1), Duration.ofMinutes(1),
                    () -> status(bucket.executionName() + "-g1").isPresent());
            assertThat(describe(bucket.executionName() + "-g1").startDate()).as("started by the sweep").isAfterOrEqualTo(sweep);
        }
        run.awaitMovingTime(() -> "the status change dropped", Duration.ofSeconds(10), Duration.ofMinutes(1),
                () -> runtime.observations().eventRules().dropped() == 1);

        expireAndCheck(table, ttls, bucket);
    }

    private void expireAndCheck(ExpiryTable table, Map<String, Long> ttls, Bucket bucket) {
        run.awaitMovingTime(() -> "every item deleted", Duration.ofSeconds(1), Duration.ofMinutes(2),
                () -> runtime.observations().deletions().count(table.name()) == ttls.size());
        run.awaitMovingTime(() -> "every execution closed", Duration.ofSeconds(1), Duration.ofMinutes(1),
                () -> runtime.stepFunctionsEngine().openExecutions() == 0);

        ExecutionDescription successor = runtime.stepFunctionsEngine().describeExecution(arn(bucket.executionName() + "-g1"));
        assertThat(successor.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(successor.output()).contains("\"" + BucketWorkflow.EXPIRED + "\":3");
        assertThat(ExpiryWorkflow.outcomeOf(successor.output())).contains(BucketWorkflow.OUTCOME_EXPIRED);
        assertThat(status(bucket.executionName() + "-g2")).as("one successor").isEmpty();
        assertThat(ManualTimeRun.left(table, ttls)).isEmpty();
        run.assertNoneEarly(table, ttls);
        run.assertOneRemoveEach(table, ttls.keySet());
        assertThat(runtime.streamPoller().deadLetters().list()).as("dead-lettered batches").isEmpty();
    }

    private ExpiryTable trackedTable(String prefix) {
        ExpiryTable table = ExpiryTable.create(runtime, prefix);
        runtime.observations().deletions().track(table.name());
        return table;
    }

    private DynamoDbScheduleIndex index() {
        return new DynamoDbScheduleIndex(runtime.dynamoDb(), ScheduleIndexTable.LOCAL_TABLE_NAME);
    }

    /** Writes items due in the same second, 90 s out (in one minute bucket), and waits until they are indexed. */
    private Map<String, Long> indexedInOneBucket(ExpiryTable table, String... ids) {
        long ttl = run.now().getEpochSecond() + 90;
        Map<String, Long> ttls = new LinkedHashMap<>();
        List.of(ids).forEach(id -> ttls.put(id, ttl));
        ExpiryTable.batchWrite(runtime.dynamoDb(), table.name(), ttls);
        run.awaitHandled(table, ttls.size(), Duration.ofSeconds(60));
        return ttls;
    }

    private static Bucket bucketOf(ExpiryTable table, Map<String, Long> ttls) {
        return Bucket.containing(table.name(), BucketLevel.MINUTE, ttls.values().iterator().next());
    }

    /**
     * Every delete of the first execution fails: in each of its runs of the runner (nine), each try of
     * the delete step (four) tries each item four times; the runner seals, reads, fails while deleting,
     * and the execution's Retry policy gives up. The faults.
     */
    private int failEveryDeleteOfTheFirstExecution(Map<String, Long> ttls) {
        int faults = BucketWorkflow.BUCKET_RUN_ATTEMPTS * BucketWorkflow.RUNNER_STEP_ATTEMPTS * ttls.size()
                * BucketWorker.DELETE_ATTEMPTS;
        runtime.faults().dynamoDb().failNextAt(WindowedLocal.FUNCTION_CALLER + ".DeleteItem", faults, "InternalServerError");
        return faults;
    }

    private String arn(String executionName) {
        return Arns.execution(runtime.mode().windowed().orElseThrow().bucketStateMachineArn(), executionName);
    }

    private ExecutionDescription describe(String executionName) {
        return runtime.stepFunctionsEngine().describeExecution(arn(executionName));
    }

    private Optional<ExecutionStatus> status(String executionName) {
        try {
            return Optional.of(runtime.stepFunctionsEngine().describeExecution(arn(executionName)).status());
        } catch (StepFunctionsException missing) {
            return Optional.empty();
        }
    }
}
