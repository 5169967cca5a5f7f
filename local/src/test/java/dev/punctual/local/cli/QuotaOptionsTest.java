package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.quotas.Quota;
import dev.punctual.local.stepfunctions.quotas.QuotaSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --aws-quotas} and {@code --quota}: parsed before anything starts, refused clearly when wrong. */
class QuotaOptionsTest {

    @Test
    void unknownQuotaName_isRefusedAtParseTime_withTheNamesThereAre() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(out), new PrintWriter(err), "bench", "--quota", "start-rate=5");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--quota'")
                .contains("unknown quota 'start-rate'").contains("start-execution-rate, stop-execution-burst");
        assertThat(out.toString()).doesNotContain("Starting the embedded runtime");
    }

    @Test
    void badQuotaValue_isRefusedAtParseTime_sayingWhatItMustBe() {
        StringWriter err = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(new StringWriter()), new PrintWriter(err),
                "local", "--quota", "open-executions=-3");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("open-executions must be a positive number, got -3");
    }

    @Test
    void quota_impliesAwsQuotas_withTheOtherFiguresAtTheirDefaults() {
        QuotaSettings quotas = parse("--quota", "start-execution-rate=100", "--quota", "open-executions=50");

        assertThat(quotas.ratesEnforced()).isTrue();
        assertThat(quotas.value(Quota.START_EXECUTION_RATE)).isEqualTo(100);
        assertThat(quotas.openExecutions()).isEqualTo(50);
        assertThat(quotas.value(Quota.START_EXECUTION_BURST)).isEqualTo(1_300);
    }

    @Test
    void withoutEitherOption_nothingIsThrottled_andAwsQuotasAloneIsTheTable() {
        assertThat(parse()).isEqualTo(QuotaSettings.ratesUnlimited());
        assertThat(parse("--aws-quotas")).isEqualTo(QuotaSettings.awsDefaults());
    }

    private static QuotaSettings parse(String... args) {
        LocalCommand local = new LocalCommand();
        new CommandLine(local).parseArgs(args);
        return local.quotaOptions.quotas();
    }
}
