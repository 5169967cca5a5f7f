package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StreamWiringTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void filterPatterns_withCancellation_letsNumberAndStringTtlsAndOldNumberTtlsThrough() throws Exception {
        var patterns = StreamWiring.filterPatterns("expiresAt", true);

        assertThat(patterns).hasSize(3);
        assertThat(JSON.readTree(patterns.get(0)).at("/dynamodb/NewImage/expiresAt/N/0/exists").asBoolean()).isTrue();
        assertThat(JSON.readTree(patterns.get(1)).at("/dynamodb/NewImage/expiresAt/S/0/exists").asBoolean()).isTrue();
        assertThat(JSON.readTree(patterns.get(2)).at("/dynamodb/OldImage/expiresAt/N/0/exists").asBoolean()).isTrue();
    }

    @Test
    void filterPatterns_withoutCancellation_skipsOldImages() {
        assertThat(StreamWiring.filterPatterns("ttl", false)).hasSize(2).noneMatch(p -> p.contains("OldImage"));
    }

    @Test
    void filterPatterns_whenNameWouldBreakThePattern_refusesIt() {
        assertThatThrownBy(() -> StreamWiring.filterPatterns("tt\"l", true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tt\"l");
        assertThatThrownBy(() -> StreamWiring.filterPatterns("", true)).isInstanceOf(IllegalArgumentException.class);
    }
}
