package dev.punctual.expiry;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TtlValueTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static TtlValue valid(String text) {
        return ((TtlValue.Valid) TtlValue.check(AttributeText.n(text), "ttl", NOW)).ttl();
    }

    @Test
    void equality_isByStoredText_becauseTheConditionalDeleteComparesText() {
        assertThat(valid("1767225700")).isEqualTo(valid("1767225700")).hasSameHashCodeAs(valid("1767225700"))
                .isNotEqualTo(valid("1767225700.0")).isNotEqualTo("1767225700");
        assertThat(valid("1767225700.0")).hasToString("1767225700.0");
        assertThat(valid("1.7672257E9").seconds()).isEqualByComparingTo(new BigDecimal("1767225700"));
    }
}
