package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryExecutions;
import dev.punctual.tests.support.ExpiryTable;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The whole runtime on a manual timer ({@code LocalRuntime.Options.withTimer}): the engine's Waits, the
 * stream poller's pacing and the handler's clock all read the test's time, so an item due in an hour
 * expires in a few seconds of real time. DynamoDB Local's own stream timestamps stay real; the mapping
 * restamps records with the runtime's instant of reading.
 */
class ManualTimeEndToEndTest {

    /** How far the test moves time at each check while it waits for the stream: the mapping's poll interval. */
    private static final Duration STEP = Duration.ofMillis(100);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private ManualTimer timer;
    private LocalRuntime runtime;

    @BeforeEach
    void start() {
        timer = ManualTimer.startingAt(Instant.now());
        // Cancellation on: on a timer the test brings, the mapping stamps records with the runtime's clock,
        // so Punctual's own REMOVE is read at the TTL, not an hour before it by DynamoDB Local's wall clock.
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withTimer(timer));
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    /** Waits until {@code condition} holds, moving the runtime's time on by {@link #STEP} at each check. */
    private void awaitMovingTime(String description, BooleanSupplier condition) {
        Await.until(description, WAIT, () -> {
            timer.advance(STEP);
            return condition.getAsBoolean();
        });
    }

    @Test
    void anItemDueInAnHour_expiresAtItsTtlOnTheRuntimesTime_whenTheTestMovesTimeAnHour() {
        ExpiryTable table = ExpiryTable.create(runtime, "manual");
        ExpiryExecutions executions = new ExpiryExecutions(runtime);
        long ttl = timer.clock().instant().plus(Duration.ofHours(1)).getEpochSecond();
        String arn = executions.arnOf(table, "hour", ttl);

        table.putWithTtl("hour", ttl);
        awaitMovingTime("the execution started and waiting", () -> executions.find(arn).isPresent());
        timer.advanceTo(Instant.ofEpochSecond(ttl).minusSeconds(5));
        assertThat(table.contains("hour")).as("five seconds before its TTL, by the runtime's clock").isTrue();

        timer.advanceTo(Instant.ofEpochSecond(ttl));
        awaitMovingTime("the item deleted", () -> !table.contains("hour"));

        ExecutionDescription closed = executions.awaitClosed(arn);
        assertThat(ExpiryExecutions.outcome(closed)).isEqualTo(ExpiryWorkflow.OUTCOME_EXPIRED);
        assertThat(executions.deleteSucceededAt(arn)).hasValueSatisfying(
                deletedAt -> assertThat(deletedAt).as("never early").isAfterOrEqualTo(Instant.ofEpochSecond(ttl)));
    }
}
