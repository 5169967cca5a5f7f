package dev.punctual.local.modes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.functions.ExpirySettings;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.names.BucketExecutionName;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketGenerations;
import dev.punctual.windowed.BucketLevel;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bucket function's environment on the local runtime, against what the construct sets in Lambda. */
class WindowedLocalTest {

    private static final String STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:punctual-expire-bucket";

    /** A context answering only what the environment reads; anything else asked of it fails the test. */
    private static LocalMode.Context context(int bucketDeleteConcurrency) {
        return (LocalMode.Context) Proxy.newProxyInstance(LocalMode.Context.class.getClassLoader(),
                new Class<?>[] {LocalMode.Context.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "bucketDeleteConcurrency" -> bucketDeleteConcurrency;
                    case "stepFunctionsEndpoint" -> URI.create("http://127.0.0.1:8083");
                    case "dynamoDbEndpoint" -> URI.create("http://127.0.0.1:8000");
                    default -> throw new AssertionError("the environment should not need " + method.getName());
                });
    }

    @Test
    void bucketFunctionEnvironment_carriesTheRuntimesBucketDeleteConcurrency_asTheFunctionReadsIt() {
        Map<String, String> environment = WindowedLocal.bucketFunctionEnvironment(context(3), STATE_MACHINE_ARN);

        assertThat(environment).containsEntry(StreamWiring.ENV_MAX_CONCURRENCY, "3")
                .containsEntry(StreamWiring.ENV_STATE_MACHINE_ARN, STATE_MACHINE_ARN)
                .containsEntry(StreamWiring.ENV_SCHEDULE_TABLE, ScheduleIndexTable.LOCAL_TABLE_NAME);
        assertThat(ExpirySettings.forBucketFunction(environment).maxConcurrency()).isEqualTo(3);
    }

    @Test
    void bucketFunctionEnvironment_atTheDefault_deletesAsManyAtOnceAsTheDeployedFunction() {
        Map<String, String> environment = WindowedLocal.bucketFunctionEnvironment(
                context(StreamWiring.DEFAULT_BUCKET_CONCURRENCY), STATE_MACHINE_ARN);

        assertThat(ExpirySettings.forBucketFunction(environment).maxConcurrency())
                .isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY).isEqualTo(64);
    }

    private static final Instant NOW = Instant.parse("2027-01-15T08:00:00Z");
    private static final long MINUTE = NOW.getEpochSecond() - 3_600;
    private static final long HOUR = NOW.getEpochSecond() - 7_200;

    /** A context whose engine lists {@code executions}, and describes each of them. */
    private static LocalMode.Context engine(List<ExecutionSummary> executions) {
        return engine(executions, executions);
    }

    /**
     * A context whose engine lists {@code listed} and describes {@code described}: what was started or
     * ended between the listing and the describing.
     */
    private static LocalMode.Context engine(List<ExecutionSummary> listed, List<ExecutionSummary> described) {
        return (LocalMode.Context) Proxy.newProxyInstance(LocalMode.Context.class.getClassLoader(),
                new Class<?>[] {LocalMode.Context.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "executions" -> listed.stream().filter(e -> e.status() == args[1]).toList();
                    case "executionStatus" -> described.stream().filter(e -> e.executionArn().equals(args[0]))
                            .map(ExecutionSummary::status).findFirst();
                    default -> throw new AssertionError("the holds should not need " + method.getName());
                });
    }

    private static ExecutionSummary execution(String name, ExecutionStatus status, Instant stopped) {
        return new ExecutionSummary(Arns.execution(STATE_MACHINE_ARN, name), STATE_MACHINE_ARN, name, status,
                NOW.minus(Duration.ofHours(3)), stopped);
    }

    private static String bucket(BucketLevel level, long start, int generation) {
        BucketExecutionName first = BucketExecutionName.parse(new Bucket("orders", level, start).executionName()).orElseThrow();
        return new BucketExecutionName(first.bucket(), false, 0, generation).toString();
    }

    @Test
    void oldestHeldStart_ofRunningExecutions_isTheEarliestBucketStartOfAnyLevel() {
        LocalMode.Context context = engine(List.of(
                execution(bucket(BucketLevel.MINUTE, MINUTE, 0), ExecutionStatus.RUNNING, null),
                execution(bucket(BucketLevel.HOUR, HOUR, 0), ExecutionStatus.RUNNING, null),
                execution(bucket(BucketLevel.MINUTE, MINUTE - 600, 0), ExecutionStatus.SUCCEEDED, NOW)));

        assertThat(WindowedLocal.oldestHeldStart(context, STATE_MACHINE_ARN, NOW)).isEqualTo(HOUR);
    }

    @Test
    void oldestHeldStart_withNothingOpen_holdsNothing() {
        assertThat(WindowedLocal.oldestHeldStart(engine(List.of()), STATE_MACHINE_ARN, NOW)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void oldestHeldStart_aFailedBucketStillToBeReplaced_holdsItsStart() {
        LocalMode.Context context = engine(List.of(
                execution(bucket(BucketLevel.MINUTE, MINUTE, 0), ExecutionStatus.RUNNING, null),
                execution(bucket(BucketLevel.MINUTE, HOUR, 2), ExecutionStatus.FAILED, NOW.minus(Duration.ofHours(20)))));

        assertThat(WindowedLocal.oldestHeldStart(context, STATE_MACHINE_ARN, NOW)).isEqualTo(HOUR);
    }

    @Test
    void oldestHeldStart_aSuccessorStartedAfterTheRunningOnesWereListed_isFoundFromItsPredecessor() {
        ExecutionSummary failed = execution(bucket(BucketLevel.MINUTE, HOUR, 0), ExecutionStatus.FAILED, NOW);
        ExecutionSummary failedToo = execution(bucket(BucketLevel.MINUTE, HOUR, 1), ExecutionStatus.ABORTED, NOW);
        ExecutionSummary successor = execution(bucket(BucketLevel.MINUTE, HOUR, 2), ExecutionStatus.RUNNING, null);

        LocalMode.Context context = engine(List.of(failed), List.of(failed, failedToo, successor));

        assertThat(WindowedLocal.oldestHeldStart(context, STATE_MACHINE_ARN, NOW)).isEqualTo(HOUR);
    }

    @Test
    void oldestHeldStart_aFailedBucketReplacedBySuccess_abandoned_orBeyondTheHealingSweepsLookback_holdsNothing() {
        LocalMode.Context context = engine(List.of(
                execution(bucket(BucketLevel.MINUTE, HOUR, 0), ExecutionStatus.TIMED_OUT, NOW),
                execution(bucket(BucketLevel.MINUTE, HOUR, 1), ExecutionStatus.FAILED, NOW),
                execution(bucket(BucketLevel.MINUTE, HOUR, 2), ExecutionStatus.SUCCEEDED, NOW),
                execution(bucket(BucketLevel.MINUTE, HOUR + 60, BucketGenerations.MAX_GENERATIONS), ExecutionStatus.FAILED, NOW),
                execution(bucket(BucketLevel.MINUTE, HOUR + 120, 0), ExecutionStatus.ABORTED,
                        NOW.minus(Duration.ofDays(1)).minusSeconds(1))));

        assertThat(WindowedLocal.oldestHeldStart(context, STATE_MACHINE_ARN, NOW)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void oldestHeldStart_aRunningExecutionNamedByHand_holdsEverything() {
        LocalMode.Context context = engine(List.of(execution("by-hand", ExecutionStatus.RUNNING, null)));

        assertThat(WindowedLocal.oldestHeldStart(context, STATE_MACHINE_ARN, NOW)).isEqualTo(Long.MIN_VALUE);
    }
}
