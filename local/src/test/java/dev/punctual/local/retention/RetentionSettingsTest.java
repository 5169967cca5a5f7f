package dev.punctual.local.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetentionSettingsTest {

    @Test
    void withOverride_aWholeNumberChangesTheCount_andKeepsTheAge() {
        RetentionSettings settings = RetentionSettings.defaults().withOverride("closed-executions=20_000");

        assertThat(settings.of(Retained.CLOSED_EXECUTIONS))
                .isEqualTo(Retention.of(20_000, Retained.CLOSED_EXECUTIONS.defaults().age()));
        assertThat(settings.of(Retained.EVENTS)).isEqualTo(Retained.EVENTS.defaults());
    }

    @Test
    void withOverride_aNumberWithAUnitChangesTheAge_andKeepsTheCount() {
        RetentionSettings settings = RetentionSettings.defaults()
                .withOverride("events=90s").withOverride("expiries=30m").withOverride("dead-letters=2h")
                .withOverride("metric-minutes=7d");

        assertThat(settings.of(Retained.EVENTS).age()).isEqualTo(Duration.ofSeconds(90));
        assertThat(settings.of(Retained.EVENTS).count()).isEqualTo(Retained.EVENTS.defaults().count());
        assertThat(settings.of(Retained.EXPIRIES).age()).isEqualTo(Duration.ofMinutes(30));
        assertThat(settings.of(Retained.DEAD_LETTERS).age()).isEqualTo(Duration.ofHours(2));
        assertThat(settings.of(Retained.METRIC_MINUTES).age()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void withOverride_unknownName_listsTheNames() {
        assertThatThrownBy(() -> RetentionSettings.defaults().withOverride("executions=5"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown kind 'executions'").hasMessageContaining("closed-executions, events");
    }

    @Test
    void withOverride_badValues_sayWhatAValueMayBe() {
        assertThatThrownBy(() -> RetentionSettings.defaults().withOverride("events=lots"))
                .hasMessageContaining("events: expected a count (e.g. 5000) or an age (e.g. 90s, 30m, 2h, 4d)");
        assertThatThrownBy(() -> RetentionSettings.defaults().withOverride("events=0"))
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> RetentionSettings.defaults().withOverride("events=0m"))
                .hasMessageContaining("must be positive");
        assertThatThrownBy(() -> RetentionSettings.defaults().withOverride("events"))
                .hasMessageContaining("expected NAME=VALUE");
    }

    @Test
    void localRuntimeDocs_printTheRetentionTableOfTheCode() throws IOException {
        Path page = Path.of("..", "docs", "local-runtime.md");
        assertThat(Files.readString(page)).contains(Retained.markdownTable());
    }
}
