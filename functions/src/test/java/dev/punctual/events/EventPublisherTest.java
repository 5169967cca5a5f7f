package dev.punctual.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventPublisherTest {

    private final RecordingEventBus bus = new RecordingEventBus();
    private final List<Duration> pauses = new ArrayList<>();
    private final EventPublisher publisher = new EventPublisher(bus, pauses::add, () -> 0.5);

    private static List<EventEntry> entries(int count) {
        List<EventEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            entries.add(new EventEntry("seq-" + i, Instant.EPOCH, "{\"n\":" + i + "}", List.of()));
        }
        return entries;
    }

    @Test
    void publish_whenTwentyFiveEntries_callsPutEventsThreeTimesWithAtMostTen() {
        EventPublisher.Outcome outcome = publisher.publish(entries(25));

        assertThat(outcome.unpublished()).isEmpty();
        assertThat(bus.calls()).extracting(List::size).containsExactly(10, 10, 5);
        assertThat(pauses).isEmpty();
    }

    @Test
    void publish_whenAMultipleOfTen_makesFullCallsOnly_andNoEmptyOne() {
        publisher.publish(entries(20));
        publisher.publish(entries(10));
        publisher.publish(entries(0));

        assertThat(bus.calls()).extracting(List::size).containsExactly(10, 10, 10);
        assertThat(bus.calls().get(0)).extracting(EventEntry::sequenceNumber).startsWith("seq-0").endsWith("seq-9");
        assertThat(bus.calls().get(1)).extracting(EventEntry::sequenceNumber).startsWith("seq-10").endsWith("seq-19");
    }

    @Test
    void publish_whenSomeEntriesRefusedOnce_retriesOnlyThoseAfterABackoff() {
        Map<String, Integer> seen = new HashMap<>();
        bus.refuse(entry -> seen.merge(entry.sequenceNumber(), 1, Integer::sum) == 1
                && entry.sequenceNumber().endsWith("3") ? "ThrottlingException" : null);

        EventPublisher.Outcome outcome = publisher.publish(entries(25));

        assertThat(outcome.unpublished()).isEmpty();
        assertThat(outcome.retriedEntries()).isEqualTo(3);
        assertThat(bus.calls()).extracting(List::size).containsExactly(10, 10, 5, 3);
        assertThat(bus.calls().get(3)).extracting(EventEntry::sequenceNumber).containsExactly("seq-3", "seq-13", "seq-23");
        assertThat(pauses).containsExactly(Duration.ofMillis(50));
    }

    @Test
    void publish_whenAnEntryIsAlwaysRefused_givesUpAfterMaxAttemptsAndNamesItsRecordAndError() {
        bus.refuse(entry -> entry.sequenceNumber().equals("seq-1") ? "InternalFailure" : null);

        EventPublisher.Outcome outcome = publisher.publish(entries(3));

        assertThat(outcome.unpublished()).containsExactly(Map.entry("seq-1", "InternalFailure"));
        assertThat(bus.sent()).filteredOn(entry -> entry.sequenceNumber().equals("seq-1")).hasSize(EventPublisher.MAX_ATTEMPTS);
        assertThat(pauses).containsExactly(Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200));
    }

    @Test
    void publish_whenInterruptedWhileBackingOff_failsAndKeepsTheInterrupt() {
        EventPublisher interrupted = new EventPublisher(bus, duration -> {
            throw new InterruptedException();
        }, () -> 0.5);
        bus.refuse(entry -> "ThrottlingException");

        try {
            assertThatThrownBy(() -> interrupted.publish(entries(1))).isInstanceOf(IllegalStateException.class)
                    .hasMessage("interrupted while backing off from PutEvents");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
