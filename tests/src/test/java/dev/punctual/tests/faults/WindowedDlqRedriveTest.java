package dev.punctual.tests.faults;

import static dev.punctual.tests.faults.FaultFixtures.punctual;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stream.DeadLetter;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A windowed table's batch dead-lettered (every DynamoDB call of Punctual's failing while the mapping
 * retries it) and redriven with {@code punctual dlq redrive}, as a user would: the records go to a handler
 * of the mode the runtime handled them in, built from the environment the runtime gives its own, so the
 * item is indexed, its minute's bucket deletes it at its second, and no per-item execution starts.
 *
 * <p>The runtime runs on a manual timer: the mapping's retry delay and the SDK's backoff wait on it, so
 * the wait for the dead letter moves time a retry delay at each check (seconds in all, against the hour
 * to the TTL), and the hour is then skipped, stopping at every instant the runtime owes work at. The TTL
 * lies an hour after the wall clock's now, beyond DynamoDB Local's own TTL job.
 */
class WindowedDlqRedriveTest {

    private static final String TABLE = "windowed-letters";
    private static final Duration RETRY_DELAY = Duration.ofMillis(100);

    @TempDir
    Path data;

    @Test
    void windowedBatchDeadLettered_redrive_indexesItForItsBucket_deletedAtItsSecond_noPerItemExecution() {
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        long ttl = timer.clock().instant().plus(Duration.ofHours(1)).getEpochSecond();
        MappingSettings mapping = MappingSettings.builder().maximumRetryAttempts(1).retryDelay(RETRY_DELAY).build();
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED)
                .withDataDirectory(data).withMapping(mapping).withTimer(timer))) {
            SkippedTime time = SkippedTime.of(runtime);
            FaultFixtures.createTable(runtime.dynamoDb(), TABLE, true);
            runtime.streamPoller().discoverTables();
            runtime.observations().deletions().track(TABLE);
            runtime.faults().dynamoDb().failFraction(1.0, "InternalServerError", 45);
            FaultFixtures.batchWrite(runtime.dynamoDb(), TABLE, Map.of("held", ttl));

            // Hang guard only: each check moves the runtime's time on by a retry delay, which is what the
            // retries wait for.
            Await.until(() -> "the batch dead-lettered, at " + timer.clock().instant(), Duration.ofMinutes(2), () -> {
                timer.advance(RETRY_DELAY);
                return !runtime.streamPoller().deadLetters().list().isEmpty();
            });
            runtime.faults().dynamoDb().clear();
            time.settle();
            List<DeadLetter> letters = runtime.streamPoller().deadLetters().list();
            assertThat(letters).singleElement().satisfies(letter -> assertThat(letter.handledInMode()).contains("windowed"));
            assertThat(bucketExecutions(runtime)).as("nothing indexed while every call failed").isEmpty();

            FaultFixtures.CliResult list = punctual("dlq", "list", "--data-dir", data.toString());
            assertThat(list.out()).contains(letters.get(0).id()).contains("windowed");

            FaultFixtures.CliResult redrive = punctual("dlq", "redrive", "--data-dir", data.toString(),
                    "--sfn-endpoint", runtime.endpoints().stepFunctions().toString(),
                    "--dynamodb-endpoint", runtime.endpoints().dynamoDb().toString());
            assertThat(redrive.exitCode()).as(redrive.out() + redrive.err()).isZero();
            assertThat(redrive.out()).contains("1 redriven, 0 failed");

            time.settle();
            assertThat(bucketExecutions(runtime)).as("the item's bucket, started by the redriven handler").isNotEmpty();
            assertThat(runtime.stepFunctionsEngine().listExecutions(LocalDefaults.stateMachineArn(), null, 1000, null).items())
                    .as("per-item executions").isEmpty();

            Instant due = Instant.ofEpochSecond(ttl);
            time.advanceTo(due.minusMillis(1));
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), TABLE)).as("the item, the last millisecond before its TTL").containsExactly("held");
            time.advanceTo(due);
            assertThat(FaultFixtures.ids(runtime.dynamoDb(), TABLE)).as("the item, once its second settled").isEmpty();
            Optional<Instant> deletedAt = runtime.observations().deletions().deletedAt(TABLE, Map.of(FaultFixtures.KEY, AttributeValue.fromS("held")));
            assertThat(deletedAt).as("deleted by its bucket, in its second").hasValueSatisfying(at ->
                    assertThat(at).isAfterOrEqualTo(due).isBefore(due.plusSeconds(1)));
        }
        assertThat(punctual("dlq", "list", "--data-dir", data.toString()).out()).contains("1 dead letter(s), 0 not redriven");
    }

    private static List<String> bucketExecutions(LocalRuntime runtime) {
        String arn = runtime.mode().windowed().orElseThrow().bucketStateMachineArn();
        return runtime.stepFunctionsEngine().listExecutions(arn, null, 1000, null).items().stream()
                .map(ExecutionSummary::name).filter(name -> name.contains(TABLE)).toList();
    }
}
