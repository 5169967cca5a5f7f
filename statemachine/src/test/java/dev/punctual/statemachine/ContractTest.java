package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ContractTest {

    @ParameterizedTest
    @EnumSource(Contract.class)
    void check_whenAbsent_readsVersionOne(Contract contract) {
        assertThat(contract.check(null)).isEqualTo(1);
        assertThat(contract.checkPayload(Map.of("other", 1))).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Contract.class)
    void check_whenTheVersionThisBuildWrites_readsIt_asJsonOrDynamoDbGiveIt(Contract contract) {
        assertThat(contract.check(contract.version())).isEqualTo(contract.version());
        assertThat(contract.check(Integer.toString(contract.version()))).isEqualTo(contract.version());
        assertThat(contract.checkPayload(Map.of(Contract.FIELD, contract.version()))).isEqualTo(contract.version());
    }

    @ParameterizedTest
    @EnumSource(Contract.class)
    void check_whenNewerThanThisBuildReads_refusesNamingTheContract(Contract contract) {
        assertThatThrownBy(() -> contract.check(contract.version() + 1))
                .isInstanceOf(Contract.UnsupportedContractException.class)
                .hasMessageContaining(contract.title())
                .hasMessageContaining("contract " + contract.name())
                .hasMessageContaining("version " + (contract.version() + 1))
                .hasMessageContaining("docs/upgrading.md");
    }

    @Test
    void check_whenNotAVersion_refusesNamingTheField() {
        assertThatThrownBy(() -> Contract.INDEX_ITEM.check("one"))
                .isInstanceOf(Contract.UnsupportedContractException.class)
                .hasMessageContaining("\"contract\" is one");
        assertThatThrownBy(() -> Contract.INDEX_ITEM.check(0)).isInstanceOf(Contract.UnsupportedContractException.class);
        assertThatThrownBy(() -> Contract.INDEX_ITEM.check(1.5)).isInstanceOf(Contract.UnsupportedContractException.class);
    }
}
