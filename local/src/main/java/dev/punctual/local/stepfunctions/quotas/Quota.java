package dev.punctual.local.stepfunctions.quotas;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The Step Functions (Standard) quotas the local runtime can enforce: the one table of their
 * figures, each with where it comes from. {@code --aws-quotas} enforces the largest Regions' figures;
 * {@code --quota NAME=VALUE} overrides one. {@code docs/local-runtime.md} prints {@link #markdownTable()}
 * verbatim (a test compares them).
 */
public enum Quota {

    START_EXECUTION_BURST("start-execution-burst", 1_300, 800, "StartExecution token bucket size",
            Source.API_THROTTLING),
    START_EXECUTION_RATE("start-execution-rate", 300, 150, "StartExecution refill, per second", Source.API_THROTTLING),
    STOP_EXECUTION_BURST("stop-execution-burst", 1_000, 500, "StopExecution token bucket size", Source.OTHER_QUOTAS),
    STOP_EXECUTION_RATE("stop-execution-rate", 200, 25, "StopExecution refill, per second", Source.OTHER_QUOTAS),
    STATE_TRANSITION_BURST("state-transition-burst", 5_000, 800, "Standard state-transition token bucket size",
            Source.STATE_THROTTLING),
    STATE_TRANSITION_RATE("state-transition-rate", 1_500, 500, "Standard state-transition refill, per second",
            Source.STATE_THROTTLING),
    OPEN_EXECUTIONS("open-executions", 1_000_000, 1_000_000, "open (running) executions per account and Region",
            Source.ACCOUNT_QUOTAS);

    /**
     * Where the figures were read: the Step Functions developer guide's *Quotas* page, in the copy the
     * awsdocs/aws-step-functions-developer-guide repository archived ({@code doc_source/limits-overview.md});
     * AWS "may increase both the bucket size and refill rate at any time".
     */
    private static final class Source {
        private static final String GUIDE = "developer guide, *Quotas*: ";
        static final String API_THROTTLING = GUIDE + "API action throttling";
        static final String OTHER_QUOTAS = GUIDE + "other quotas";
        static final String STATE_THROTTLING = GUIDE + "state throttling";
        static final String ACCOUNT_QUOTAS = GUIDE + "accounts";
    }

    private final String optionName;
    private final double largestRegions;
    private final double otherRegions;
    private final String meaning;
    private final String source;

    Quota(String optionName, double largestRegions, double otherRegions, String meaning, String source) {
        this.optionName = optionName;
        this.largestRegions = largestRegions;
        this.otherRegions = otherRegions;
        this.meaning = meaning;
        this.source = source;
    }

    /** The name {@code --quota} takes, e.g. {@code start-execution-rate}. */
    public String optionName() {
        return optionName;
    }

    /** The figure in US East (N. Virginia), US West (Oregon) and Europe (Ireland): the default. */
    public double largestRegions() {
        return largestRegions;
    }

    /** Whether the figure is a rate (any positive number) rather than a count (a whole number). */
    public boolean isRate() {
        return optionName.endsWith("-rate");
    }

    /** The quota named {@code optionName}, if there is one. */
    public static Optional<Quota> byOptionName(String optionName) {
        return Arrays.stream(values()).filter(q -> q.optionName.equals(optionName)).findFirst();
    }

    /** Every option name, comma-separated, for error messages. */
    public static String optionNames() {
        return Arrays.stream(values()).map(Quota::optionName).collect(Collectors.joining(", "));
    }

    /** The table {@code docs/local-runtime.md} shows. */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder()
                .append("| `--quota` name | what | largest Regions (default) | other Regions | source |\n")
                .append("|---|---|---|---|---|\n");
        for (Quota quota : values()) {
            table.append("| `").append(quota.optionName).append("` | ").append(quota.meaning).append(" | ")
                    .append(format(quota.largestRegions)).append(" | ").append(format(quota.otherRegions)).append(" | ")
                    .append(quota.source).append(" |\n");
        }
        return table.toString();
    }

    static String format(double value) {
        return value == Math.rint(value) ? String.format(Locale.ROOT, "%,d", (long) value)
                : String.format(Locale.ROOT, "%s", value);
    }
}
