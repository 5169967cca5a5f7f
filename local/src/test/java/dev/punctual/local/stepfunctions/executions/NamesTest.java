package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.statemachine.StepFunctionsLimits;
import org.junit.jupiter.api.Test;

class NamesTest {

    @Test
    void validate_acceptsExactlyTheNamesTheSharedRuleAccepts_forEveryCharacterOfTheBasicPlane() {
        for (int c = 0; c <= 0xFFFF; c++) {
            String name = "a" + (char) c;
            boolean accepted;
            try {
                Names.validate("name", name);
                accepted = true;
            } catch (StepFunctionsException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.INVALID_NAME);
                accepted = false;
            }
            assertThat(accepted).as("U+%04X", c).isEqualTo(StepFunctionsLimits.isValidName(name));
        }
    }

    @Test
    void validate_acceptsLettersOutsideAscii_asAwsDoes_andRefusesItsListedCharacters() {
        assertThatCode(() -> Names.validate("name", "café-日本")).doesNotThrowAnyException();
        for (String bad : new String[] {"a b", "a\u00A0b", "a:b", "a\u0085b", "a\uFFFEb", "a\uDC00b"}) {
            assertThatThrownBy(() -> Names.validate("name", bad)).as(bad).isInstanceOf(StepFunctionsException.class)
                    .hasMessageContaining("Invalid Name");
        }
    }

    @Test
    void validate_checksTheLengthFirst() {
        assertThatThrownBy(() -> Names.validate("name", " ".repeat(81))).hasMessageContaining("length between 1 and 80");
        assertThatThrownBy(() -> Names.validate("name", "")).hasMessageContaining("length between 1 and 80");
    }
}
