package dev.punctual.local.cli;

import dev.punctual.local.stepfunctions.quotas.Quota;
import dev.punctual.local.stepfunctions.quotas.QuotaSettings;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code --aws-quotas} and {@code --quota NAME=VALUE}: the Step Functions quotas the runtime enforces. */
final class QuotaOptions {

    @Option(names = "--aws-quotas",
            description = "Enforce Step Functions' quotas (largest Regions' figures): StartExecution and StopExecution"
                    + " token buckets (ThrottlingException), state transitions (delayed), open executions"
                    + " (ExecutionLimitExceeded).")
    boolean awsQuotas;

    @Option(names = "--quota", paramLabel = "NAME=VALUE", converter = OverrideConverter.class,
            description = "Override one quota figure (repeatable); implies --aws-quotas. Names: start-execution-burst,"
                    + " start-execution-rate, stop-execution-burst, stop-execution-rate, state-transition-burst,"
                    + " state-transition-rate, open-executions.")
    List<QuotaOverride> overrides = new ArrayList<>();

    /** One {@code --quota} value, checked when parsed. */
    record QuotaOverride(String text) {
    }

    /** The quotas these options ask for; without either option, today's unthrottled runtime. */
    QuotaSettings quotas() {
        if (!awsQuotas && overrides.isEmpty()) {
            return QuotaSettings.ratesUnlimited();
        }
        QuotaSettings quotas = QuotaSettings.awsDefaults();
        for (QuotaOverride override : overrides) {
            quotas = quotas.withOverride(override.text());
        }
        return quotas;
    }

    /** Refuses an unknown name or a bad value while the command line is parsed, before anything starts. */
    static final class OverrideConverter implements ITypeConverter<QuotaOverride> {
        @Override
        public QuotaOverride convert(String value) {
            try {
                QuotaSettings.awsDefaults().withOverride(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            return new QuotaOverride(value);
        }
    }

    /** One line saying what is enforced, for the commands' start-up output. */
    static String describe(QuotaSettings quotas) {
        if (!quotas.ratesEnforced()) {
            return "not enforced (open executions " + String.format(java.util.Locale.ROOT, "%,d", quotas.openExecutions()) + ")";
        }
        StringBuilder line = new StringBuilder("enforced:");
        for (Quota quota : Quota.values()) {
            double value = quotas.value(quota);
            line.append(' ').append(quota.optionName()).append('=')
                    .append(value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value));
        }
        return line.toString();
    }
}
