package dev.punctual.local.stepfunctions.quotas;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Which quotas the local runtime enforces and at what figures. The open-execution limit always
 * applies (at 1,000,000 unless overridden, as before quotas were configurable); the token buckets
 * (StartExecution, StopExecution, state transitions) apply only when {@link #ratesEnforced()}.
 */
public final class QuotaSettings {

    private final boolean ratesEnforced;
    private final Map<Quota, Double> values;

    private QuotaSettings(boolean ratesEnforced, Map<Quota, Double> values) {
        this.ratesEnforced = ratesEnforced;
        this.values = values;
    }

    /** No rate limits; the open-execution limit at AWS's figure. What the runtime does without {@code --aws-quotas}. */
    public static QuotaSettings ratesUnlimited() {
        return new QuotaSettings(false, largestRegions());
    }

    /** Every quota at the largest Regions' figure: {@code --aws-quotas}. */
    public static QuotaSettings awsDefaults() {
        return new QuotaSettings(true, largestRegions());
    }

    private static Map<Quota, Double> largestRegions() {
        Map<Quota, Double> values = new EnumMap<>(Quota.class);
        for (Quota quota : Quota.values()) {
            values.put(quota, quota.largestRegions());
        }
        return values;
    }

    /**
     * These quotas with {@code quota} at {@code value}.
     *
     * @throws IllegalArgumentException when the value is not positive, or not whole for a count
     */
    public QuotaSettings with(Quota quota, double value) {
        Objects.requireNonNull(quota, "quota");
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(quota.optionName() + " must be a positive number, got "
                    + Quota.format(value));
        }
        if (!quota.isRate() && (value != Math.rint(value) || value > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(quota.optionName() + " must be a whole number from 1 to "
                    + Integer.MAX_VALUE + ", got " + Quota.format(value));
        }
        Map<Quota, Double> next = new EnumMap<>(values);
        next.put(quota, value);
        return new QuotaSettings(ratesEnforced, next);
    }

    /**
     * These quotas with one override written {@code name=value}, as {@code --quota} takes it.
     *
     * @throws IllegalArgumentException naming the quota names there are, or what the value must be
     */
    public QuotaSettings withOverride(String nameEqualsValue) {
        int equals = nameEqualsValue.indexOf('=');
        if (equals < 0) {
            throw new IllegalArgumentException("expected NAME=VALUE, e.g. start-execution-rate=100; got '"
                    + nameEqualsValue + "'");
        }
        String name = nameEqualsValue.substring(0, equals).strip();
        String text = nameEqualsValue.substring(equals + 1).strip();
        Quota quota = Quota.byOptionName(name).orElseThrow(() -> new IllegalArgumentException(
                "unknown quota '" + name + "'; the quotas are " + Quota.optionNames()));
        double value;
        try {
            value = Double.parseDouble(text.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive number, got '" + text + "'");
        }
        return with(quota, value);
    }

    public boolean ratesEnforced() {
        return ratesEnforced;
    }

    public double value(Quota quota) {
        return values.get(quota);
    }

    /** Running executions beyond which StartExecution fails with {@code ExecutionLimitExceeded}. */
    public int openExecutions() {
        return (int) value(Quota.OPEN_EXECUTIONS);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof QuotaSettings that && ratesEnforced == that.ratesEnforced
                && values.equals(that.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ratesEnforced, values);
    }

    @Override
    public String toString() {
        return (ratesEnforced ? "quotas enforced " : "rates unlimited ") + values;
    }
}
