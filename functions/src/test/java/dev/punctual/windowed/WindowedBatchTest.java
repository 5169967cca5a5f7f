package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.EventName;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.RecordingListener;
import dev.punctual.expiry.StreamChange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Windowed mode's scheduler under the one batch processor: the per-record rule holds as per item. */
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
        String failing = Bucket.containing(TABLE, BucketLevel.SECOND, T + 30).executionName();
        WindowedFakes.BucketExecutions refusing = new WindowedFakes.BucketExecutions() {
            @Override
            public StartResult start(String name, String inputJson) {
                if (name.equals(failing)) {
                    throw new IllegalStateException("throttled");
                }
                return super.start(name, inputJson);
            }
        };
        ChangeProcessor processor = new ChangeProcessor(new ExpiryRules("ttl", false),
                new BucketScheduler(index, table, refusing, clock, clock, pool), clock, listener, pool);

        List<String> failed = processor.process(List.of(
                change("a", "1", null, T + 30),
                change("b", "2", null, T + 50),
                change("a", "3", T + 30, T + 70)));

        // Record 3's bucket started with the batch, yet it is reported: record 1 of the same item failed.
        assertThat(failed).containsExactly("1", "3");
        assertThat(listener.heard()).containsExactly("1 failed throttled", "2 INDEXED", "3 skipped after 1");
    }
}
