package dev.punctual.local.measure;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.TtlValue;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.HistoryEvent;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.names.ItemExecutionName;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Where the accuracy trial learns when Punctual deleted each item, and how many it has deleted so
 * far: the one thing the trial does differently by mode. Per-item mode reads each item's execution
 * (its conditional delete's {@code TaskSucceeded}, and when it left its Wait), a source independent of
 * the table; windowed mode has no execution per item and reads the runtime's ledger of when each
 * conditional delete returned.
 */
interface DeletionTimes {

    /**
     * What happened to one item, each {@code null} if it did not happen.
     *
     * @param wokeAt when the item's own execution left its Wait (per-item mode; windowed mode has none)
     * @param deletedAt when Punctual's conditional delete of it returned
     */
    record ItemTimes(Instant wokeAt, Instant deletedAt) {
    }

    /** The source for {@code runtime}'s mode. */
    static DeletionTimes of(LocalRuntime runtime) {
        return runtime.mode().executionPerItem() ? new Histories(runtime) : new Ledger(runtime);
    }

    /** What happened to item {@code itemId} of {@code table}, due at {@code ttl}. */
    ItemTimes times(String table, String itemId, long ttl, Instant now);

    /**
     * Items of {@code table} deleted so far, for the progress display: {@code open} is how many of the
     * trial's executions are still open, {@code allScheduled} whether every item has been handed to the handler.
     */
    long deletedSoFar(String table, int items, boolean allScheduled, int open);

    /** Windowed mode: the runtime's deletion ledger. */
    record Ledger(LocalRuntime runtime) implements DeletionTimes {
        @Override
        public ItemTimes times(String table, String itemId, long ttl, Instant now) {
            return new ItemTimes(null, runtime.observations().deletions().deletedAt(table, TrialTable.key(itemId)).orElse(null));
        }

        @Override
        public long deletedSoFar(String table, int items, boolean allScheduled, int open) {
            return runtime.observations().deletions().count(table);
        }
    }

    /** Per-item mode: each item's execution history. */
    record Histories(LocalRuntime runtime) implements DeletionTimes {
        @Override
        public ItemTimes times(String table, String itemId, long ttl, Instant now) {
            TtlValue valid = ((TtlValue.Valid) TtlValue.check(AttributeText.n(Long.toString(ttl)), TrialTable.TTL_ATTRIBUTE,
                    now)).ttl();
            String name = ItemExecutionName.first(table, ItemKey.of(Map.of(TrialTable.KEY_ATTRIBUTE, AttributeText.s(itemId))),
                    valid).toString();
            return times(runtime.stepFunctionsEngine(), Arns.execution(runtime.mode().stateMachineArn(), name));
        }

        @Override
        public long deletedSoFar(String table, int items, boolean allScheduled, int open) {
            return allScheduled ? Math.max(0, items - open) : 0;
        }

        /**
         * When the execution last left its Wait, and when its conditional delete succeeded if it ended
         * {@code Expired}: the latest of each, after any retries.
         */
        private static ItemTimes times(StepFunctionsEngine engine, String executionArn) {
            List<HistoryEvent> events;
            try {
                events = engine.getExecutionHistory(executionArn, 20, null, true).items();
            } catch (StepFunctionsException noSuchExecution) {
                return new ItemTimes(null, null);
            }
            Instant wokeAt = latest(events, "WaitStateExited");
            boolean expired = events.stream().anyMatch(e -> e.type().equals("ExecutionSucceeded")
                    && ExpiryWorkflow.outcomeOf(e.details().path("output").asText())
                            .filter(ExpiryWorkflow.OUTCOME_EXPIRED::equals).isPresent());
            return new ItemTimes(wokeAt, expired ? latest(events, "TaskSucceeded") : null);
        }

        /** The timestamp of the newest event of {@code type} in {@code newestFirst}, or {@code null}. */
        private static Instant latest(List<HistoryEvent> newestFirst, String type) {
            return newestFirst.stream().filter(e -> e.type().equals(type)).map(HistoryEvent::timestamp).findFirst()
                    .orElse(null);
        }
    }
}
