package dev.punctual.local.measure;

import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The accuracy of one run: how many items expired, how many too early or not at all, and how late
 * the deletes were. Lag is the conditional delete's completion minus the item's exact TTL.
 *
 * @param items items written
 * @param deleted items Punctual's execution deleted
 * @param early items deleted before their TTL, by the execution history or by a table read
 * @param backstop items gone after their TTL without Punctual's delete. In AWS that is native TTL, the
 *     backstop, getting there first because Punctual was late; the local runtime stops DynamoDB Local's
 *     own TTL job, so here it means something else deleted the item
 * @param missed items still in the table after every TTL had passed and the table then stopped emptying
 *     for the grace period
 * @param lagMillis lag of the deleted items, sorted ascending
 * @param schedulingPerSecond stream records turned into running executions per second: the items,
 *     written while the mapping was disabled, over the time from enabling it until the last one's
 *     execution was running
 * @param heapMb heap in use at the end of the run
 * @param throttled what the Step Functions quotas throttled during the run (zeros without {@code --aws-quotas});
 *     under quotas, {@code schedulingPerSecond} is the rate the StartExecution bucket allowed
 * @param timeline where each TTL second's time went ({@link #withTimeline}); empty unless the trial added it
 */
public record AccuracyReport(
        int items,
        int deleted,
        int early,
        int backstop,
        int missed,
        long[] lagMillis,
        double schedulingPerSecond,
        long heapMb,
        ThrottleCounts throttled,
        ExpiryTimeline timeline) {

    /** Builds the report from per-item observations, with nothing throttled. */
    public static AccuracyReport of(List<ExpiryObservation> observations, double schedulingPerSecond, long heapMb) {
        return of(observations, schedulingPerSecond, heapMb, ThrottleCounts.NONE);
    }

    /** Builds the report from per-item observations and what the quotas throttled. */
    public static AccuracyReport of(List<ExpiryObservation> observations, double schedulingPerSecond, long heapMb,
            ThrottleCounts throttled) {
        int deleted = 0;
        int early = 0;
        int backstop = 0;
        int missed = 0;
        long[] lags = new long[observations.size()];
        int lagCount = 0;
        for (ExpiryObservation observation : observations) {
            boolean deletedByExecution = observation.deletedAt() != null;
            if (deletedByExecution) {
                deleted++;
                long lag = Duration.between(observation.ttl(), observation.deletedAt()).toMillis();
                lags[lagCount++] = lag;
                if (observation.deletedAt().isBefore(observation.ttl())) {
                    early++;
                    continue;
                }
            }
            if (observation.seenGoneEarly()) {
                early++;
            } else if (observation.stillPresent()) {
                missed++;
            } else if (!deletedByExecution) {
                backstop++;
            }
        }
        long[] sorted = Arrays.copyOf(lags, lagCount);
        Arrays.sort(sorted);
        return new AccuracyReport(observations.size(), deleted, early, backstop, missed, sorted, schedulingPerSecond, heapMb,
                throttled, ExpiryTimeline.empty());
    }

    /** This report with {@code secondsTimeline} as its timeline. */
    public AccuracyReport withTimeline(ExpiryTimeline secondsTimeline) {
        return new AccuracyReport(items, deleted, early, backstop, missed, lagMillis, schedulingPerSecond, heapMb, throttled,
                secondsTimeline);
    }

    /** Lag at a percentile (nearest rank), or 0 when nothing was deleted. */
    public long lagPercentile(double percentile) {
        return Percentiles.nearestRank(lagMillis, percentile);
    }

    /** Largest lag, or 0 when nothing was deleted. */
    public long maxLag() {
        return Percentiles.max(lagMillis);
    }

    /** True when nothing was early, nothing was missed and Punctual itself deleted every item. */
    public boolean perfect() {
        return early == 0 && missed == 0 && deleted == items;
    }

    /** The last line {@code demo}, {@code bench} and {@code soak} print: whether the run was {@link #perfect()}. */
    public String verdict() {
        return perfect() ? "OK: every item expired at its TTL, none early, none missed."
                : "NOT OK: see early, missed and backstop above.";
    }

    /** The human-readable block {@code demo} and {@code bench} print. */
    public String toText() {
        return String.format(Locale.ROOT, String.join("%n",
                "items              %d",
                "deleted            %d",
                "early              %d   (must be 0)",
                "missed             %d   (must be 0)",
                "backstop first     %d   (gone after the TTL, but not by Punctual's delete)",
                "lag p50            %d ms",
                "lag p95            %d ms",
                "lag p99            %d ms",
                "lag max            %d ms",
                "scheduling         %.0f records/s (stream backlog to running executions)",
                "throttled          %d StartExecution, %d StopExecution, %d state transitions",
                "heap used          %d MB"),
                items, deleted, early, missed, backstop, lagPercentile(50), lagPercentile(95), lagPercentile(99), maxLag(),
                schedulingPerSecond, throttled.startExecution(), throttled.stopExecution(), throttled.stateTransitions(),
                heapMb);
    }

    /** One JSON object, for {@code bench --json}. */
    public String toJson() {
        return toJson(Map.of());
    }

    /** One JSON object with {@code extra} fields appended: names to JSON values, in the map's order. */
    public String toJson(Map<String, String> extra) {
        StringBuilder more = new StringBuilder();
        extra.forEach((name, json) -> more.append(",\"").append(name).append("\":").append(json));
        return base().replaceFirst("}$", java.util.regex.Matcher.quoteReplacement(more + "}"));
    }

    private String base() {
        return String.format(Locale.ROOT,
                "{\"items\":%d,\"deleted\":%d,\"early\":%d,\"missed\":%d,\"backstop\":%d,"
                        + "\"lagMs\":{\"p50\":%d,\"p95\":%d,\"p99\":%d,\"max\":%d},"
                        + "\"schedulingPerSecond\":%.1f,\"heapMb\":%d,"
                        + "\"throttled\":{\"startExecution\":%d,\"stopExecution\":%d,\"stateTransitions\":%d}}",
                items, deleted, early, missed, backstop, lagPercentile(50), lagPercentile(95), lagPercentile(99), maxLag(),
                schedulingPerSecond, heapMb, throttled.startExecution(), throttled.stopExecution(),
                throttled.stateTransitions());
    }
}
