package dev.punctual.peritem;

import static dev.punctual.expiry.Changes.insert;
import static dev.punctual.expiry.Changes.modify;
import static dev.punctual.expiry.Changes.n;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.expiry.Scheduled;
import dev.punctual.expiry.Scheduler;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.names.ItemExecutionName;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ItemSchedulerTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final ExpiryRules rules = new ExpiryRules("ttl");
    private final FakeExecutions executions = new FakeExecutions();
    private final ItemScheduler scheduler = new ItemScheduler(executions, true);

    private ItemPlan insertAt(String ttl) {
        return planAt(insert(n(ttl)), NOW);
    }

    private ItemPlan planAt(StreamChange change, Instant now) {
        return scheduler.plan(rules.decide(change, now), now);
    }

    @Test
    void apply_startsTheExecution() {
        ItemScheduler.Applied applied = scheduler.apply(insertAt("1767225700"));

        String name = insertAt("1767225700").start().orElseThrow().name();
        assertThat(applied).isEqualTo(new ItemScheduler.Applied(ItemScheduler.Outcome.STARTED, name, List.of()));
        assertThat(executions.calls()).containsExactly("start " + name);
    }

    @Test
    void apply_whenTheRecordIsADuplicate_startsNothingNew() {
        scheduler.apply(insertAt("1767225700"));

        ItemScheduler.Applied again = scheduler.apply(insertAt("1767225700"));

        assertThat(again.outcome()).isEqualTo(ItemScheduler.Outcome.STARTED);
        assertThat(executions.executions()).hasSize(1);
    }

    @Test
    void apply_whenARunningExecutionHoldsTheNameWithOtherInput_reportsItPending() {
        // The same TTL seen later (a retried batch, a backfill) can compute fewer horizon hops:
        // same name, other input, so Step Functions refuses the start.
        Instant far = NOW.plusSeconds(400L * 86_400);
        scheduler.apply(planAt(insert(n(Long.toString(far.getEpochSecond()))), NOW));

        ItemScheduler.Applied later = scheduler.apply(planAt(insert(n(Long.toString(far.getEpochSecond()))), NOW.plusSeconds(60L * 86_400)));

        assertThat(later.outcome()).isEqualTo(ItemScheduler.Outcome.ALREADY_PENDING);
        assertThat(executions.executions()).hasSize(1);
    }

    @Test
    void apply_whenTheItemComesBackWithTheSameTtlAfterItsExecutionClosed_startsAgainUnderARestartName() {
        ItemPlan decision = insertAt("1767225700");
        String name = decision.start().orElseThrow().name();
        scheduler.apply(decision);
        executions.close(name, Executions.Status.CLOSED);

        ItemScheduler.Applied restarted = scheduler.apply(decision);
        ItemScheduler.Applied duplicate = scheduler.apply(decision);

        String restartName = ItemExecutionName.parse(name).orElseThrow().restarted(executions.executions().get(name).stopDate()).toString();
        assertThat(restarted).isEqualTo(new ItemScheduler.Applied(ItemScheduler.Outcome.RESTARTED, restartName, List.of()));
        assertThat(executions.input(restartName)).contains("\"chainName\":\"" + restartName + "\"");
        // A duplicate of the recreating record walks to the same restart name, and Step Functions
        // returns the running execution for the same name and input: nothing new starts.
        assertThat(duplicate).isEqualTo(restarted);
        assertThat(executions.executions()).hasSize(2);
    }

    @Test
    void apply_whenTheHolderContinuedAsASuccessor_reportsItPending() {
        ItemPlan decision = insertAt("1767225700");
        String name = decision.start().orElseThrow().name();
        scheduler.apply(decision);
        executions.close(name, Executions.Status.CONTINUED);

        assertThat(scheduler.apply(decision).outcome()).isEqualTo(ItemScheduler.Outcome.ALREADY_PENDING);
    }

    @Test
    void apply_walksRestartNamesAndGivesUpAfterTheLimit() {
        ItemPlan decision = insertAt("1767225700");
        for (int round = 0; round <= ItemScheduler.MAX_RESTARTS; round++) {
            String started = scheduler.apply(decision).execution();
            executions.close(started, Executions.Status.CLOSED);
        }

        assertThatThrownBy(() -> scheduler.apply(decision)).isInstanceOf(ItemScheduler.RestartLimitException.class)
                .hasMessageContaining("recreated with the same TTL too often");
    }

    @Test
    void apply_stopsStaleExecutionsBeforeStarting() {
        scheduler.apply(insertAt("1767225700"));
        String old = insertAt("1767225700").start().orElseThrow().name();
        executions.clearCalls();

        ItemScheduler.Applied applied = scheduler.apply(planAt(modify(n("1767225700"), n("1767225800")), NOW));

        String fresh = insertAt("1767225800").start().orElseThrow().name();
        assertThat(executions.calls()).containsExactly("stop " + old, "start " + fresh);
        assertThat(applied).isEqualTo(new ItemScheduler.Applied(ItemScheduler.Outcome.STARTED, fresh, List.of(old)));
    }

    @Test
    void apply_cancelOfAnExecutionThatNeverStarted_succeeds() {
        ItemScheduler.Applied applied = scheduler.apply(planAt(modify(n("1767225700"), null), NOW));

        assertThat(applied).isEqualTo(new ItemScheduler.Applied(ItemScheduler.Outcome.STOPPED, null, List.of()));
    }

    @Test
    void apply_ignoreCallsNothing() {
        ItemScheduler.Applied applied = scheduler.apply(planAt(insert(AttributeText.s("1")), NOW));

        assertThat(applied.outcome()).isEqualTo(ItemScheduler.Outcome.IGNORED);
        assertThat(executions.calls()).isEmpty();
    }

    @Test
    void apply_whenANameNotAnItemExecutionsIsHeldByAClosedOne_saysSoRatherThanMakingUpARestart() {
        ItemPlan planned = insertAt("1767225700");
        ItemPlan decision = new ItemPlan(planned.decision(), planned.start().orElseThrow().renamed("not-an-item-name"), List.of());
        scheduler.apply(decision);
        executions.close("not-an-item-name", Executions.Status.CLOSED);

        assertThatThrownBy(() -> scheduler.apply(decision)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'not-an-item-name' is not an item execution's name");
    }

    @Test
    void plan_withCancellationOff_stopsNothingTheChangeLeftStale() {
        ItemScheduler keeping = new ItemScheduler(executions, false);

        ItemPlan plan = keeping.plan(rules.decide(modify(n("1767225700"), n("1767225800")), NOW), NOW);
        ItemScheduler.Applied applied = keeping.apply(plan);

        String fresh = insertAt("1767225800").start().orElseThrow().name();
        assertThat(plan.stops()).isEmpty();
        assertThat(applied).isEqualTo(new ItemScheduler.Applied(ItemScheduler.Outcome.STARTED, fresh, List.of()));
        assertThat(executions.calls()).containsExactly("start " + fresh);
    }

    @Test
    void begin_preparesNothing_eachStepCarriesOutItsOwnPlan() {
        ItemPlan first = insertAt("1767225700");
        ItemPlan second = insertAt("1767225800");
        Scheduler.Step<ItemPlan> step = scheduler.begin(List.of(first, second), ThrottleBackoff.noRetries());
        assertThat(executions.calls()).isEmpty();

        Scheduled done = step.carryOut(second);

        assertThat(done).isEqualTo(new ItemScheduler.Applied(ItemScheduler.Outcome.STARTED, second.start().orElseThrow().name(), List.of()));
        assertThat(executions.calls()).containsExactly("start " + second.start().orElseThrow().name());
    }
}
