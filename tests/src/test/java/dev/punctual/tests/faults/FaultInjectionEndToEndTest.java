package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.ManualTimeRun;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Expiry under injected faults, on the real runtime and a manual timer: 5 % of every DynamoDB call
 * Punctual makes (the handler's index writes, seal reads and deletes, the bucket function's seals,
 * reads and deletes, the state machine's deletes) fail, and in windowed mode 5 % of the bucket
 * function's invocations time out after doing their work. Every item must still go, none early, each
 * once (one REMOVE per item in the stream), and nothing may be dead-lettered.
 *
 * <p>Each test has its own runtime on its own manual timer: they run side by side.
 */
@Execution(ExecutionMode.CONCURRENT)
class FaultInjectionEndToEndTest {

    private static final int ITEMS = 3_000;
    /** TTLs from one to six minutes out: windowed, in minute buckets whose runners work each second. */
    private static final long FIRST_TTL = 60;
    private static final long SPREAD = 300;
    private static final double FRACTION = 0.05;

    private LocalRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void windowed_underDynamoDbErrorsAndBucketFunctionTimeouts_expiresEveryItemOnce_noneEarly_nothingDeadLettered() {
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED).withTimer(timer));
        runtime.faults().dynamoDb().failFraction(FRACTION, "InternalServerError", 22);
        runtime.faults().lambda().failFraction(FRACTION, "Lambda.Unknown", 23);

        expireUnderFaults(timer, "fault-w", ITEMS);

        // Every caller, and each of the bucket function's calls (hundreds of each). The handler's mark reads are
        // one per minute per batch, a few dozen in all, so at 5 % one run in three injects none there: the
        // handler counts as reached through either of its calls; a failed mark read has a test of its own.
        assertThat(runtime.faults().injected().bySite()).as("faults reached every caller").containsKeys(
                "bucket-function.UpdateItem", "bucket-function.Query", "bucket-function.DeleteItem", "state-machine.Invoke");
        assertThat(runtime.faults().injected().bySite().keySet()).as("faults reached the handler").anyMatch(site -> site.startsWith("handler."));
        assertThat(runtime.observations().eventRules().dropped()).as("status changes the rule gave up on").isZero();
    }

    @Test
    void perItem_underDynamoDbErrors_expiresEveryItemOnce_noneEarly_nothingDeadLettered() {
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        // Cancellation off: on a manual timer Punctual's own REMOVE carries DynamoDB Local's real
        // timestamp, minutes before the TTL by the runtime's clock, and would read as an early delete.
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withCancelStale(false).withTimer(timer));
        runtime.faults().dynamoDb().failFraction(FRACTION, "ProvisionedThroughputExceededException", 24);

        expireUnderFaults(timer, "fault-p", ITEMS);

        assertThat(runtime.faults().injected().bySite()).containsKey("state-machine.DeleteItem");
    }

    @Test
    void windowed_aFailedReadOfTheRunnersMark_retriesTheRecord_andEveryItemStillExpiresOnce() {
        ManualTimer timer = ManualTimer.startingAt(Instant.now());
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED).withTimer(timer));
        runtime.faults().dynamoDb().failNextAt("handler.GetItem", 2, "InternalServerError");

        expireUnderFaults(timer, "fault-m", 30);

        assertThat(runtime.faults().injected().bySite()).as("the handler's mark reads failed")
                .containsOnlyKeys("handler.GetItem");
    }

    /** Writes {@code items} items, moves time past their TTLs until they are gone, and checks every one. */
    private void expireUnderFaults(ManualTimer timer, String prefix, int items) {
        ManualTimeRun run = new ManualTimeRun(runtime, timer);
        ExpiryTable table = ExpiryTable.create(runtime, prefix);
        runtime.observations().deletions().track(table.name());
        long first = run.now().getEpochSecond() + FIRST_TTL;
        Map<String, Long> ttls = new LinkedHashMap<>();
        for (int i = 0; i < items; i++) {
            ttls.put("item-" + i, first + i * SPREAD / items);
        }
        ExpiryTable.batchWrite(runtime.dynamoDb(), table.name(), ttls);

        run.awaitHandled(table, items, Duration.ofMinutes(3));
        run.awaitMovingTime(() -> "every item deleted; deleted so far " + runtime.observations().deletions().count(table.name()) + " at "
                        + run.now(), Duration.ofSeconds(1), Duration.ofMinutes(5),
                () -> runtime.observations().deletions().count(table.name()) == items);
        assertThat(ManualTimeRun.left(table, ttls)).as("items left").isEmpty();
        // Retries of invocations that timed out after their deletes come minutes later: let them run, so
        // a second delete of any item would show in the stream.
        run.awaitMovingTime(() -> "every execution closed, every successor started", Duration.ofSeconds(5), Duration.ofMinutes(3),
                () -> runtime.stepFunctionsEngine().openExecutions() == 0 && runtime.observations().eventRules().pending() == 0);

        run.assertNoneEarly(table, ttls);
        run.assertOneRemoveEach(table, ttls.keySet());
        assertThat(runtime.streamPoller().deadLetters().list()).as("dead-lettered batches").isEmpty();
        assertThat(runtime.faults().injected().total()).as("faults injected").isGreaterThan(items / 100);
    }
}
