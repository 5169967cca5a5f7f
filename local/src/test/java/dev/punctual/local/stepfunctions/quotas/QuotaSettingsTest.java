package dev.punctual.local.stepfunctions.quotas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class QuotaSettingsTest {

    @Test
    void awsDefaults_areTheLargestRegionsFigures() {
        QuotaSettings quotas = QuotaSettings.awsDefaults();
        assertThat(quotas.ratesEnforced()).isTrue();
        assertThat(quotas.value(Quota.START_EXECUTION_BURST)).isEqualTo(1_300);
        assertThat(quotas.value(Quota.START_EXECUTION_RATE)).isEqualTo(300);
        assertThat(quotas.value(Quota.STOP_EXECUTION_BURST)).isEqualTo(1_000);
        assertThat(quotas.value(Quota.STOP_EXECUTION_RATE)).isEqualTo(200);
        assertThat(quotas.value(Quota.STATE_TRANSITION_BURST)).isEqualTo(5_000);
        assertThat(quotas.value(Quota.STATE_TRANSITION_RATE)).isEqualTo(1_500);
        assertThat(quotas.openExecutions()).isEqualTo(1_000_000);
        assertThat(QuotaSettings.ratesUnlimited().ratesEnforced()).isFalse();
    }

    @Test
    void withOverride_setsTheNamedFigureOnly() {
        QuotaSettings quotas = QuotaSettings.awsDefaults().withOverride("start-execution-rate=100")
                .withOverride("open-executions=50").withOverride("stop-execution-rate=0.5");
        assertThat(quotas.value(Quota.START_EXECUTION_RATE)).isEqualTo(100);
        assertThat(quotas.value(Quota.STOP_EXECUTION_RATE)).isEqualTo(0.5);
        assertThat(quotas.openExecutions()).isEqualTo(50);
        assertThat(quotas.value(Quota.START_EXECUTION_BURST)).isEqualTo(1_300);
    }

    @Test
    void withOverride_whenNameUnknown_listsTheNames() {
        assertThatThrownBy(() -> QuotaSettings.awsDefaults().withOverride("start-rate=5"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown quota 'start-rate'")
                .hasMessageContaining("start-execution-rate").hasMessageContaining("open-executions");
    }

    @Test
    void withOverride_whenValueBad_saysWhatItMustBe() {
        assertThatThrownBy(() -> QuotaSettings.awsDefaults().withOverride("start-execution-rate=fast"))
                .hasMessage("start-execution-rate must be a positive number, got 'fast'");
        assertThatThrownBy(() -> QuotaSettings.awsDefaults().withOverride("start-execution-rate=0"))
                .hasMessage("start-execution-rate must be a positive number, got 0");
        assertThatThrownBy(() -> QuotaSettings.awsDefaults().withOverride("open-executions=2.5"))
                .hasMessageContaining("open-executions must be a whole number");
        assertThatThrownBy(() -> QuotaSettings.awsDefaults().withOverride("open-executions"))
                .hasMessageContaining("expected NAME=VALUE");
    }

    @Test
    void localRuntimeDocs_printTheQuotaTableOfTheCode() throws IOException {
        Path page = Path.of("..", "docs", "local-runtime.md");
        assertThat(Files.readString(page)).contains(Quota.markdownTable());
    }
}
