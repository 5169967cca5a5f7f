package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.Decision;
import dev.punctual.expiry.EventName;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Plan;
import dev.punctual.expiry.RecordingListener;
import dev.punctual.expiry.Scheduler;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Windowed mode's scheduler under the one batch processor: the per-record rule holds as per item, and the
 * scheduler reads each item's key and TTL from the rules' decision as found.
 */
class WindowedBatchTest extends WindowedTestBase {

    private final RecordingListener listener = new RecordingListener();

    private static StreamChange change(String item, String sequence, Long oldTtl, long newTtl) {
        return new StreamChange(TABLE, oldTtl == null ? EventName.INSERT : EventName.MODIFY,
                ItemKey.of(Map.of("id", AttributeText.s(item))), oldTtl != null,
                oldTtl == null ? null : AttributeText.n(Long.toString(oldTtl)), true, AttributeText.n(Long.toString(newTtl)),
                sequence, StreamChange.Writer.UNKNOWN, null);
    }

    @Test
    void process_whenAnItemsBucketFailsToStart_failsThatItemsLaterRecordsToo_andIndexesTheOthers() {
        String failing = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30).executionName();
        WindowedFakes.BucketExecutions refusing = new WindowedFakes.BucketExecutions() {
            @Override
            public StartResult start(String name, String inputJson) {
                if (name.equals(failing)) {
                    throw new IllegalStateException("throttled");
                }
                return super.start(name, inputJson);
            }
        };
        ChangeProcessor processor = new ChangeProcessor(new ExpiryRules("ttl"),
                new BucketScheduler(index, table, refusing, clock, clock, pool), clock, listener, pool);

        List<String> failed = processor.process(List.of(
                change("a", "1", null, T + 30),
                change("b", "2", null, T + 90),
                change("a", "3", T + 30, T + 70)));

        // Record 3's bucket started with the batch, yet it is reported: record 1 of the same item failed.
        assertThat(failed).containsExactly("1", "3");
        assertThat(listener.heard()).containsExactly("1 failed throttled", "2 INDEXED", "3 skipped after 1");
    }

    /** As {@link RecordingListener}, with the bucket execution each record's item was placed in. */
    private final List<String> placed = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private final ChangeProcessor.Listener placements = new ChangeProcessor.Listener() {
        @Override
        public void decided(StreamChange change, Plan plan, dev.punctual.expiry.Scheduled scheduled) {
            placed.add(change.sequenceNumber() + " " + scheduled.outcome().name() + scheduled.executionName().map(name -> " " + name).orElse(""));
        }

        @Override
        public void failed(StreamChange change, Plan plan, RuntimeException error) {
            placed.add(change.sequenceNumber() + " failed " + error.getMessage());
        }

        @Override
        public void skipped(StreamChange change, String failedSequenceNumber) {
            placed.add(change.sequenceNumber() + " skipped after " + failedSequenceNumber);
        }
    };

    private static ItemKey key(String id) {
        return ItemKey.of(Map.of("id", AttributeText.s(id)));
    }

    private static StreamChange insert(String id, String sequence, String ttl) {
        return new StreamChange(TABLE, EventName.INSERT, key(id), false, null, true, ttl == null ? null : AttributeText.n(ttl),
                sequence, StreamChange.Writer.UNKNOWN, null);
    }

    @Test
    void process_indexesFutureItems_deletesPastOnes_andIgnoresRecordsWithoutATtl() {
        table.put(key("past"), Long.toString(T - 10));
        table.put(key("changed"), Long.toString(T + 5));
        ChangeProcessor processor = new ChangeProcessor(new ExpiryRules("ttl"), scheduler, clock, placements, pool);

        List<String> failed = processor.process(List.of(
                insert("soon", "1", Long.toString(T + 30)),
                insert("past", "2", Long.toString(T - 10)),
                insert("changed", "3", Long.toString(T - 20)),
                insert("none", "4", null)));

        assertThat(failed).isEmpty();
        assertThat(placed).containsExactly(
                "1 INDEXED " + Bucket.containing(TABLE, BucketLevel.MINUTE, T + 30).executionName(),
                "2 DELETED",
                "3 SUPERSEDED",
                "4 IGNORED");
        assertThat(index.entriesDue(TABLE, T + 30)).extracting(IndexEntry::key).containsExactly(key("soon"));
        assertThat(table.contains(key("past"))).isFalse();
        assertThat(table.contains(key("changed"))).isTrue();
    }

    @Test
    void process_duplicateRecordsOfOneItem_shareOneEntryAndOneBucketStart() {
        ChangeProcessor processor = new ChangeProcessor(new ExpiryRules("ttl"), scheduler, clock, placements, pool);

        List<String> failed = processor.process(List.of(insert("a", "1", Long.toString(T + 600)), insert("a", "2", Long.toString(T + 600))));

        String minute = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600).executionName();
        assertThat(failed).isEmpty();
        assertThat(placed).containsExactly("1 INDEXED " + minute, "2 INDEXED " + minute);
        assertThat(executions.startCalls).containsExactly(minute);
        assertThat(index.entriesDue(TABLE, T + 600)).hasSize(1);
    }

    @Test
    void process_aChangedTtl_isIndexedUnderTheNewTtlReadFromTheDecision_andStopsNothing() {
        ChangeProcessor processor = new ChangeProcessor(new ExpiryRules("ttl"), scheduler, clock, placements, pool);

        List<String> failed = processor.process(List.of(change("a", "1", T + 30, T + 90)));

        // The fake executions fail any stop, which would fail the record.
        assertThat(failed).isEmpty();
        assertThat(placed).containsExactly("1 INDEXED " + Bucket.containing(TABLE, BucketLevel.MINUTE, T + 90).executionName());
        assertThat(index.entriesDue(TABLE, T + 90)).containsExactly(new IndexEntry(key("a"), Long.toString(T + 90), T + 90));
        assertThat(index.entriesDue(TABLE, T + 30)).isEmpty();
    }

    @Test
    void plan_isTheDecisionAsTheRulesFoundIt_noPerItemPayloadLimitNorStops() {
        ExpiryRules rules = new ExpiryRules("ttl");
        // A table name no DynamoDB table has: over Step Functions' payload limit as a per-item execution's input.
        Decision huge = rules.decide(new StreamChange("t".repeat(262_144), EventName.INSERT, key("a"), false, null, true,
                AttributeText.n(Long.toString(T + 30)), "1", StreamChange.Writer.UNKNOWN, null), NOW);
        Decision changed = rules.decide(change("a", "2", T + 30, T + 90), NOW);

        assertThat(List.of(scheduler.plan(huge, NOW), scheduler.plan(changed, NOW))).allSatisfy(plan -> {
            assertThat(plan.decision().verdict()).isEqualTo(Decision.Verdict.SCHEDULE);
            assertThat(plan.execution()).isEmpty();
            assertThat(plan.stops()).isEmpty();
        });
        assertThat(scheduler.plan(huge, NOW).decision()).isSameAs(huge);
        assertThat(scheduler.plan(changed, NOW).decision().detail()).isEqualTo("TTL changed; expires at " + Instant.ofEpochSecond(T + 90));
    }

    @Test
    void aStep_askedToCarryOutADecisionThatSchedulesNothing_refuses() {
        Plan ignored = scheduler.plan(new ExpiryRules("ttl").decide(insert("none", "1", null), NOW), NOW);

        Scheduler.Step<Plan> step = scheduler.begin(List.of(ignored), ThrottleBackoff.noRetries());

        assertThatThrownBy(() -> step.carryOut(ignored)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("windowed mode stops no executions");
        assertThat(executions.startCalls).isEmpty();
    }
}
