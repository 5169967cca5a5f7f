package dev.punctual.names;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.statemachine.StepFunctionsLimits;
import java.time.Instant;
import java.util.Map;
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

    @Test
    void tableLabel_replacesWhatExecutionNamesForbid() {
        assertThat(NameText.tableLabel("a b/c:d")).isEqualTo("a_b_c_d");
        assertThat(NameText.tableLabel("é")).isEqualTo("_");
        assertThat(NameText.isLegal(ItemExecutionName.first("a b/c:d{é}", ItemKey.of(Map.of("id", AttributeText.s("a"))),
                ItemExecutionNameTest.ttl("1767225700")).toString())).isTrue();
    }

    @Test
    void isLegal_refusesWhatStepFunctionsRefuses() {
        assertThat(NameText.isLegal("a-b_c.d")).isTrue();
        for (String bad : new String[] {"", "a b", "a:b", "a/b", "a#b", "a\u0001b", "é", "x".repeat(81)}) {
            assertThat(NameText.isLegal(bad)).as(bad).isFalse();
        }
    }

    @Test
    void isLegal_atTheEdgesOfLengthAndOfPrintableAscii() {
        assertThat(NameText.isLegal("x".repeat(80))).isTrue();
        assertThat(NameText.isLegal("x".repeat(81))).isFalse();
        assertThat(NameText.isLegal("!")).as("0x21, the first printable").isTrue();
        assertThat(NameText.isLegal(" ")).as("0x20").isFalse();
        assertThat(NameText.isLegal("}")).as("0x7D, reserved").isFalse();
        assertThat(NameText.isLegal("a?b")).as("the first reserved character").isFalse();
        assertThat(NameText.isLegal("\u007F")).as("0x7F").isFalse();
    }

    @Test
    void tableLabel_keepsExactlyLettersDigitsUnderscoreDotAndDash() {
        assertThat(NameText.tableLabel("azAZ09_.-")).isEqualTo("azAZ09_.-");
        assertThat(NameText.tableLabel("`{@[/:")).isEqualTo("______");
        assertThat(NameText.tableLabel("t".repeat(30))).hasSize(NameText.TABLE_LABEL_LENGTH);
    }
}
