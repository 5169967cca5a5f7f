package dev.punctual.local.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The console's list of recent expiries is bounded by a count and an age; its counters are not. */
class ExpiryRecorderRetentionTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private final ManualClock clock = new ManualClock(T0);

    private void expire(ExpiryRecorder recorder, String id) {
        recorder.deleted("orders", Map.of("id", AttributeValue.fromS(id)), Long.toString(clock.instant().getEpochSecond()),
                clock.instant());
    }

    @Test
    void recent_beyondTheCount_showsOnlyTheNewest_whileTheCountersCountEvery() {
        ExpiryRecorder recorder = new ExpiryRecorder(clock, Retention.of(2, Duration.ofHours(1)));
        expire(recorder, "a");
        expire(recorder, "b");
        expire(recorder, "c");

        assertThat(recorder.recent(null, 100)).extracting(ExpiryRecorder.Expiry::key)
                .containsExactly("{\"id\":{\"S\":\"c\"}}", "{\"id\":{\"S\":\"b\"}}");
        assertThat(recorder.expired()).isEqualTo(3);
    }

    @Test
    void recent_olderThanTheAge_isForgotten() {
        ExpiryRecorder recorder = new ExpiryRecorder(clock, Retention.of(100, Duration.ofMinutes(30)));
        expire(recorder, "old");
        clock.advance(Duration.ofMinutes(20));
        expire(recorder, "new");

        clock.advance(Duration.ofMinutes(10).plusMillis(1));

        assertThat(recorder.recent(null, 100)).extracting(ExpiryRecorder.Expiry::key)
                .containsExactly("{\"id\":{\"S\":\"new\"}}");
    }
}
