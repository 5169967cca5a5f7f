package dev.punctual.names;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.statemachine.StepFunctionsLimits;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class NameTextTest {

    @Test
    void isLegal_isStepFunctionsRule_narrowedToAscii() {
        for (int c = 0; c <= 0xFFFF; c++) {
            String name = "a" + (char) c;
            assertThat(NameText.isLegal(name)).as("U+%04X", c).isEqualTo(c < 0x80 && StepFunctionsLimits.isValidName(name));
        }
    }

    @Test
    void instant_readsBackWhatItWrites_andNothingThatIsNoDate() {
        for (Instant instant : new Instant[] {Instant.EPOCH, Instant.parse("0000-01-01T00:00:00Z"),
                Instant.parse("9999-12-31T23:59:59Z"), Instant.parse("2028-02-29T12:34:56Z")}) {
            assertThat(NameText.instant(NameText.instant(instant))).contains(instant);
        }
        assertThat(NameText.instant(Instant.parse("2026-01-01T00:00:00.999Z"))).isEqualTo("20260101T000000Z");
        for (String other : new String[] {"20270229T000000Z", "20261131T000000Z", "20260101T240000Z", "20260101T000060Z",
                "20260101T000000", "2026-01-01T00:00:00Z", ""}) {
            assertThat(NameText.instant(other)).as(other).isEmpty();
        }
    }
}
