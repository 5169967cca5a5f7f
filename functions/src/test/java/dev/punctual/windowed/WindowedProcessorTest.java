package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.Decision;
import dev.punctual.expiry.EventName;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ExpiryScheduler;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.StreamChange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The handler's windowed batch, through {@link WindowedProcessor#process}: the rules decide each
 * record, the scheduler places the batch's items, and every record is heard once, failures failing
 * the item's later records as in per-item mode.
 */
class WindowedProcessorTest extends WindowedTestBase {

    private final List<String> heard = Collections.synchronizedList(new ArrayList<>());
    private final ChangeProcessor.Listener listener = new ChangeProcessor.Listener() {
        @Override
        public void decided(StreamChange change, Decision decision, ExpiryScheduler.Applied applied) {
            heard.add(change.sequenceNumber() + " " + applied.outcome() + applied.executionName().map(name -> " " + name).orElse(""));
        }

        @Override
        public void failed(StreamChange change, Decision decision, RuntimeException error) {
            heard.add(change.sequenceNumber() + " failed " + error.getMessage());
        }

        @Override
        public void skipped(StreamChange change, String failedSequenceNumber) {
            heard.add(change.sequenceNumber() + " skipped after " + failedSequenceNumber);
        }
    };
    private final AtomicBoolean resourcesClosed = new AtomicBoolean();

    private WindowedProcessor processor(BucketScheduler scheduler) {
        return new WindowedProcessor(new ExpiryRules("ttl", false), scheduler, clock, listener, () -> resourcesClosed.set(true));
    }

    private static ItemKey key(String id) {
        return ItemKey.of(Map.of("id", AttributeText.s(id)));
    }

    private static StreamChange insert(String id, String sequence, AttributeText ttl) {
        return new StreamChange(TABLE, EventName.INSERT, key(id), false, null, true, ttl, sequence, StreamChange.Writer.UNKNOWN, null);
    }

    private static StreamChange insert(String id, String sequence, long ttl) {
        return insert(id, sequence, AttributeText.n(Long.toString(ttl)));
    }

    @Test
    void process_indexesFutureItems_deletesPastOnes_andIgnoresRecordsWithoutATtl() {
        table.put(key("past"), Long.toString(T - 10));
        table.put(key("changed"), Long.toString(T + 5));

        List<String> failed = processor(scheduler).process(List.of(
                insert("soon", "1", T + 30),
                insert("past", "2", T - 10),
                insert("changed", "3", T - 20),
                insert("none", "4", null)));

        assertThat(failed).isEmpty();
        assertThat(heard).containsExactly(
                "1 INDEXED " + Bucket.containing(TABLE, BucketLevel.SECOND, T + 30).executionName(),
                "2 DELETED",
                "3 SUPERSEDED",
                "4 IGNORED");
        assertThat(index.entriesDue(TABLE, T + 30)).extracting(IndexEntry::key).containsExactly(key("soon"));
        assertThat(table.contains(key("past"))).isFalse();
        assertThat(table.contains(key("changed"))).isTrue();
    }

    @Test
    void process_duplicateRecordsOfOneItem_shareOneEntryAndOneBucketStart() {
        List<String> failed = processor(scheduler).process(List.of(insert("a", "1", T + 600), insert("a", "2", T + 600)));

        String minute = Bucket.containing(TABLE, BucketLevel.MINUTE, T + 600).executionName();
        assertThat(failed).isEmpty();
        assertThat(heard).containsExactly("1 INDEXED " + minute, "2 INDEXED " + minute);
        assertThat(executions.startCalls).containsExactly(minute);
        assertThat(index.entriesDue(TABLE, T + 600)).hasSize(1);
    }

    @Test
    void process_whenABucketStartFails_failsThatItemsRecordsAndItsLaterOnes_inStreamOrder_andGoesOnWithOthers() {
        WindowedFakes.BucketExecutions failing = new WindowedFakes.BucketExecutions() {
            @Override
            public Executions.StartResult start(String name, String inputJson) {
                if (name.contains("-minute-")) {
                    throw new IllegalStateException("ServiceUnavailable");
                }
                return super.start(name, inputJson);
            }
        };
        BucketScheduler withFailures = new BucketScheduler(index, table, failing, clock, clock, pool);

        List<String> failed = processor(withFailures).process(List.of(
                insert("later", "1", T + 600),
                insert("soon", "2", T + 30),
                insert("later", "3", T + 30),
                insert("none", "4", null),
                insert("later", "5", null)));

        assertThat(failed).containsExactly("1", "3", "5");
        assertThat(heard).containsExactly(
                "1 failed ServiceUnavailable",
                "2 INDEXED " + Bucket.containing(TABLE, BucketLevel.SECOND, T + 30).executionName(),
                "3 skipped after 1",
                "4 IGNORED",
                "5 skipped after 1");
    }

    @Test
    void close_closesTheSchedulersResources_andReportsAFailureToDoSo() {
        processor(scheduler).close();
        assertThat(resourcesClosed).isTrue();

        WindowedProcessor broken = new WindowedProcessor(new ExpiryRules("ttl", false), scheduler, clock, listener, () -> {
            throw new java.io.IOException("pool would not stop");
        });
        assertThatThrownBy(broken::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closing the windowed processor's resources failed")
                .hasRootCauseMessage("pool would not stop");
    }
}
