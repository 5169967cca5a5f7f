package dev.punctual.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.ExpiryExecutions;
import dev.punctual.tests.support.ExpiryTable;
import dev.punctual.tests.support.RuntimeProgress;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The runtime's handler normally reaches the engine through the in-process transport; with
 * {@code withHandlerOverHttp(true)} its SfnClient uses the Apache HTTP client and the Step Functions
 * endpoint on 127.0.0.1, exactly as configured in Lambda. The same expiry must come out of both.
 */
class HandlerOverHttpTest {

    @Test
    void overHttp_anItemIsStillDeletedAtItsTtlAndNotBefore() {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withHandlerOverHttp(true))) {
            ExpiryExecutions executions = new ExpiryExecutions(runtime);
            ExpiryTable table = ExpiryTable.create(runtime, "e2e-http");
            long ttl = Instant.now().getEpochSecond() + 3;
            Instant due = Instant.ofEpochSecond(ttl);

            table.putWithTtl("a", ttl);

            String arn = executions.arnOf(table, "a", ttl);
            assertThat(executions.awaitStarted(arn).startDate()).isBefore(due);
            Await.holdsUntil("item present at every read before its TTL", due, () -> table.contains("a"));
            Await.untilProgressing("item deleted after its TTL", RuntimeProgress.STALL, RuntimeProgress.of(runtime), () -> !table.contains("a"));
            ExecutionDescription execution = executions.awaitClosed(arn);
            assertThat(ExpiryExecutions.outcome(execution)).isEqualTo(ExpiryWorkflow.OUTCOME_EXPIRED);
            assertThat(executions.deleteSucceededAt(arn)).hasValueSatisfying(at -> assertThat(at).isAfterOrEqualTo(due));
            assertThat(runtime.options().handlerOverHttp()).isTrue();
        }
    }
}
