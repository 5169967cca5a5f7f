package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StepFunctionsLimitsTest {

    @Test
    void isValidName_refusesEveryCharacterStartExecutionsReferenceLists() {
        String listed = " \t\n\u00A0\u2003<>{}[]?*\"#%\\^|~`$&,;:/\u0000\u001F\u007F\u0085\u009F\uFFFE\uFFFF";
        listed.chars().forEach(c -> assertThat(StepFunctionsLimits.isValidName("a" + (char) c + "b"))
                .as("U+%04X", c).isFalse());
        assertThat(StepFunctionsLimits.isValidName("a\uD800b")).as("a lone surrogate").isFalse();
        assertThat(StepFunctionsLimits.isValidName("a" + Character.toString(Character.MAX_CODE_POINT) + "b"))
                .as("U+10FFFF").isFalse();
    }

    @Test
    void isValidName_acceptsWhatTheListLeavesOut_lettersOutsideAsciiIncluded() {
        assertThat(StepFunctionsLimits.isValidName("20261121T230512Z-my.table-v2_x!@'()+=")).isTrue();
        assertThat(StepFunctionsLimits.isValidName("café-日本")).isTrue();
        assertThat(StepFunctionsLimits.isValidName("\u00A1")).as("U+00A1, just after C1").isTrue();
        assertThat(StepFunctionsLimits.isValidName("a" + Character.toString(0x1F600) + "b")).as("a pair, not a surrogate")
                .isTrue();
    }

    @Test
    void isValidName_takesOneToEightyCharacters() {
        assertThat(StepFunctionsLimits.isValidName("")).isFalse();
        assertThat(StepFunctionsLimits.isValidName("x")).isTrue();
        assertThat(StepFunctionsLimits.isValidName("x".repeat(StepFunctionsLimits.MAX_NAME_LENGTH))).isTrue();
        assertThat(StepFunctionsLimits.isValidName("x".repeat(StepFunctionsLimits.MAX_NAME_LENGTH + 1))).isFalse();
    }
}
