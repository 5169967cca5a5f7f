package dev.punctual.expiry;

import static dev.punctual.expiry.Changes.insert;
import static dev.punctual.expiry.Changes.modify;
import static dev.punctual.expiry.Changes.n;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.names.ItemExecutionName;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpirySchedulerTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final ExpiryRules rules = new ExpiryRules("ttl", true);
    private final FakeExecutions executions = new FakeExecutions();
    private final ExpiryScheduler scheduler = new ExpiryScheduler(executions);

    private Decision insertAt(String ttl) {
        return rules.decide(insert(n(ttl)), NOW);
    }

    @Test
    void apply_startsTheExecution() {
        ExpiryScheduler.Applied applied = scheduler.apply(insertAt("1767225700"));

        String name = insertAt("1767225700").start().orElseThrow().name();
        assertThat(applied).isEqualTo(new ExpiryScheduler.Applied(ExpiryScheduler.Outcome.STARTED, name, List.of()));
        assertThat(executions.calls()).containsExactly("start " + name);
    }

    @Test
    void apply_whenTheRecordIsADuplicate_startsNothingNew() {
        scheduler.apply(insertAt("1767225700"));

        ExpiryScheduler.Applied again = scheduler.apply(insertAt("1767225700"));

        assertThat(again.outcome()).isEqualTo(ExpiryScheduler.Outcome.STARTED);
        assertThat(executions.executions()).hasSize(1);
    }

    @Test
    void apply_whenARunningExecutionHoldsTheNameWithOtherInput_reportsItPending() {
        // The same TTL seen later (a retried batch, a backfill) can compute fewer horizon hops:
        // same name, other input, so Step Functions refuses the start.
        Instant far = NOW.plusSeconds(400L * 86_400);
        scheduler.apply(rules.decide(insert(n(Long.toString(far.getEpochSecond()))), NOW));

        ExpiryScheduler.Applied later = scheduler.apply(rules.decide(insert(n(Long.toString(far.getEpochSecond()))), NOW.plusSeconds(60L * 86_400)));

        assertThat(later.outcome()).isEqualTo(ExpiryScheduler.Outcome.ALREADY_PENDING);
        assertThat(executions.executions()).hasSize(1);
    }

    @Test
    void apply_whenTheItemComesBackWithTheSameTtlAfterItsExecutionClosed_startsAgainUnderARestartName() {
        Decision decision = insertAt("1767225700");
        String name = decision.start().orElseThrow().name();
        scheduler.apply(decision);
        executions.close(name, Executions.Status.CLOSED);

        ExpiryScheduler.Applied restarted = scheduler.apply(decision);
        ExpiryScheduler.Applied duplicate = scheduler.apply(decision);

        String restartName = ItemExecutionName.parse(name).orElseThrow().restarted(executions.executions().get(name).stopDate()).toString();
        assertThat(restarted).isEqualTo(new ExpiryScheduler.Applied(ExpiryScheduler.Outcome.RESTARTED, restartName, List.of()));
        assertThat(executions.input(restartName)).contains("\"chainName\":\"" + restartName + "\"");
        // A duplicate of the recreating record walks to the same restart name, and Step Functions
        // returns the running execution for the same name and input: nothing new starts.
        assertThat(duplicate).isEqualTo(restarted);
        assertThat(executions.executions()).hasSize(2);
    }

    @Test
    void apply_whenTheHolderContinuedAsASuccessor_reportsItPending() {
        Decision decision = insertAt("1767225700");
        String name = decision.start().orElseThrow().name();
        scheduler.apply(decision);
        executions.close(name, Executions.Status.CONTINUED);

        assertThat(scheduler.apply(decision).outcome()).isEqualTo(ExpiryScheduler.Outcome.ALREADY_PENDING);
    }

    @Test
    void apply_walksRestartNamesAndGivesUpAfterTheLimit() {
        Decision decision = insertAt("1767225700");
        for (int round = 0; round <= ExpiryScheduler.MAX_RESTARTS; round++) {
            String started = scheduler.apply(decision).execution();
            executions.close(started, Executions.Status.CLOSED);
        }

        assertThatThrownBy(() -> scheduler.apply(decision)).isInstanceOf(ExpiryScheduler.RestartLimitException.class)
                .hasMessageContaining("recreated with the same TTL too often");
    }

    @Test
    void apply_stopsStaleExecutionsBeforeStarting() {
        scheduler.apply(insertAt("1767225700"));
        String old = insertAt("1767225700").start().orElseThrow().name();
        executions.clearCalls();

        ExpiryScheduler.Applied applied = scheduler.apply(rules.decide(modify(n("1767225700"), n("1767225800")), NOW));

        String fresh = insertAt("1767225800").start().orElseThrow().name();
        assertThat(executions.calls()).containsExactly("stop " + old, "start " + fresh);
        assertThat(applied).isEqualTo(new ExpiryScheduler.Applied(ExpiryScheduler.Outcome.STARTED, fresh, List.of(old)));
    }

    @Test
    void apply_cancelOfAnExecutionThatNeverStarted_succeeds() {
        ExpiryScheduler.Applied applied = scheduler.apply(rules.decide(modify(n("1767225700"), null), NOW));

        assertThat(applied).isEqualTo(new ExpiryScheduler.Applied(ExpiryScheduler.Outcome.STOPPED, null, List.of()));
    }

    @Test
    void apply_ignoreCallsNothing() {
        ExpiryScheduler.Applied applied = scheduler.apply(rules.decide(insert(AttributeText.s("1")), NOW));

        assertThat(applied.outcome()).isEqualTo(ExpiryScheduler.Outcome.IGNORED);
        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void apply_whenANameNotAnItemExecutionsIsHeldByAClosedOne_saysSoRatherThanMakingUpARestart() {
        ExecutionRequest request = insertAt("1767225700").start().orElseThrow().renamed("not-an-item-name");
        Decision decision = Decision.schedule(Reason.TTL_SET, "TTL set", request, List.of());
        scheduler.apply(decision);
        executions.close("not-an-item-name", Executions.Status.CLOSED);

        assertThatThrownBy(() -> scheduler.apply(decision)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'not-an-item-name' is not an item execution's name");
    }
}
