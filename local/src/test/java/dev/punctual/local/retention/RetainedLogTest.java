package dev.punctual.local.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetainedLogTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void add_beyondTheCount_forgetsTheOldestAndTellsOfEach() {
        List<String> forgotten = new ArrayList<>();
        RetainedLog<String> log = new RetainedLog<>(Retention.of(2, Duration.ofHours(1)), forgotten::add);

        log.add("a", T0);
        log.add("b", T0);
        log.add("c", T0);

        assertThat(log.oldestFirst()).containsExactly("b", "c");
        assertThat(forgotten).containsExactly("a");
        assertThat(log.forgotten()).isEqualTo(1);
    }

    @Test
    void addInOrder_placesALateComerByItsTime_soTheOldestIsForgotten_notTheOneAddedFirst() {
        // A restart read e-20 from a closed-execution file before e-19 from a segment: with the count full,
        // e-19 must be the one forgotten (it closed first), and e-20 kept.
        List<String> forgotten = new ArrayList<>();
        RetainedLog<String> log = new RetainedLog<>(Retention.of(2, Duration.ofHours(1)), forgotten::add);

        log.addInOrder("e-18", T0.plusSeconds(18));
        log.addInOrder("e-20", T0.plusSeconds(20));
        log.addInOrder("e-19", T0.plusSeconds(19));
        assertThat(log.oldestFirst()).containsExactly("e-19", "e-20");
        assertThat(forgotten).containsExactly("e-18");

        log.addInOrder("e-17", T0.plusSeconds(17));
        assertThat(log.oldestFirst()).as("older than all kept, with the count full: forgotten at once")
                .containsExactly("e-19", "e-20");
        assertThat(forgotten).containsExactly("e-18", "e-17");

        log.addInOrder("e-21", T0.plusSeconds(21));
        log.addInOrder("e-21b", T0.plusSeconds(21));
        assertThat(log.oldestFirst()).as("in order, and a tie after what is there").containsExactly("e-21", "e-21b");
    }

    @Test
    void trim_keepsAnEntryForItsAge_andForgetsItTheMomentItIsThatOld() {
        RetainedLog<String> log = new RetainedLog<>(Retention.of(100, Duration.ofMinutes(10)));
        log.add("old", T0);
        log.add("young", T0.plusSeconds(60));

        log.trim(T0.plus(Duration.ofMinutes(10)).minusMillis(1));
        assertThat(log.oldestFirst()).containsExactly("old", "young");

        log.trim(T0.plus(Duration.ofMinutes(10)));
        assertThat(log.oldestFirst()).containsExactly("young");
        assertThat(log.forgotten()).isEqualTo(1);
    }

    @Test
    void add_trimsByAgeAsWell() {
        RetainedLog<String> log = new RetainedLog<>(Retention.of(100, Duration.ofMinutes(1)));
        log.add("old", T0);

        log.add("new", T0.plus(Duration.ofMinutes(2)));

        assertThat(log.oldestFirst()).containsExactly("new");
    }

    @Test
    void newestFirst_walksBackwards() {
        RetainedLog<String> log = new RetainedLog<>(Retention.of(100, Duration.ofMinutes(1)));
        log.add("a", T0);
        log.add("b", T0);
        List<String> seen = new ArrayList<>();

        log.newestFirst().forEachRemaining(seen::add);

        assertThat(seen).containsExactly("b", "a");
    }
}
