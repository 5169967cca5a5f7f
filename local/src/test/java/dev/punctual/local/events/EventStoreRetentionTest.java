package dev.punctual.local.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The event store keeps the newest events within a count and an age, and says how many a reader missed. */
class EventStoreRetentionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ManualClock clock = new ManualClock(Instant.parse("2030-01-01T00:00:00Z"));

    private static ObjectNode event(String table) {
        ObjectNode event = JSON.createObjectNode();
        event.putObject("detail").put("table", table);
        return event;
    }

    @Test
    void append_beyondTheCount_dropsTheOldest_andAReaderFromTheStartLearnsHowManyItMissed() {
        EventStore store = EventStore.in(null, Retention.of(3, Duration.ofHours(1)), clock);
        for (int i = 0; i < 5; i++) {
            store.append("default", event("orders"));
        }

        EventStore.Page page = store.after(0, null, 100);

        assertThat(page.events()).extracting(EventStore.StoredEvent::position).containsExactly(3L, 4L, 5L);
        assertThat(page.dropped()).isEqualTo(2);
        assertThat(page.next()).isEqualTo(5);
        assertThat(store.published()).isEqualTo(5);
        assertThat(store.after(5, null, 100).dropped()).as("a reader that kept up missed nothing").isZero();
        assertThat(store.after(3, null, 100).events()).extracting(EventStore.StoredEvent::position)
                .containsExactly(4L, 5L);
    }

    @Test
    void after_olderThanTheAge_dropsThem_withNothingAppendedSince() {
        EventStore store = EventStore.in(null, Retention.of(100, Duration.ofMinutes(5)), clock);
        store.append("default", event("orders"));
        clock.advance(Duration.ofMinutes(2));
        store.append("default", event("orders"));

        clock.advance(Duration.ofMinutes(3).plusMillis(1));
        EventStore.Page page = store.after(0, "orders", 100);

        assertThat(page.events()).extracting(EventStore.StoredEvent::position).containsExactly(2L);
        assertThat(page.dropped()).isEqualTo(1);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void aStoreInADirectory_isRewrittenWithWhatIsKept_andReopensWithThePositionsItHad(@TempDir Path directory)
            throws IOException {
        EventStore store = EventStore.in(directory, Retention.of(2, Duration.ofHours(1)), clock);
        for (int i = 0; i < 9; i++) {
            store.append("default", event(i % 2 == 0 ? "even" : "odd"));
            store.flush();
        }
        store.close();

        long lines = Files.readAllLines(directory.resolve(EventStore.FILE_NAME)).size();
        assertThat(lines).as("lines on disk: at most twice the count").isLessThanOrEqualTo(4);

        EventStore reopened = EventStore.in(directory, Retention.of(2, Duration.ofHours(1)), clock);
        assertThat(reopened.all()).extracting(EventStore.StoredEvent::position).containsExactly(8L, 9L);
        assertThat(reopened.append("default", event("even")).position()).isEqualTo(10);
        reopened.close();
    }

    @Test
    void aStoreInADirectory_forgetsByAgeAcrossARestart(@TempDir Path directory) {
        EventStore store = EventStore.in(directory, Retention.of(100, Duration.ofMinutes(5)), clock);
        store.append("default", event("orders"));
        store.close();

        clock.advance(Duration.ofMinutes(6));
        EventStore reopened = EventStore.in(directory, Retention.of(100, Duration.ofMinutes(5)), clock);

        assertThat(reopened.size()).isZero();
        assertThat(reopened.after(0, null, 10).dropped()).isEqualTo(1);
        reopened.close();
    }
}
