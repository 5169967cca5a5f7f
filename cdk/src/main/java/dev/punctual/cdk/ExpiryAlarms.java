package dev.punctual.cdk;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awscdk.services.cloudwatch.Alarm;

/**
 * The alarms {@link PunctualExpiry} creates, one per way expiries can go late or missing. The execution
 * alarms watch the state machine of the construct's mode ({@code expire-item} or {@code expire-bucket});
 * a mode adds alarms on its own resources ({@link #modeAlarms()}).
 */
public final class ExpiryAlarms {

    private final Alarm iteratorAge;
    private final Alarm functionErrors;
    private final Alarm deadLetters;
    private final Alarm executionsFailed;
    private final Alarm executionsTimedOut;
    private final List<Alarm> modeAlarms;
    private final Alarm expiryLag;
    private final Alarm backstopWins;

    /**
     * @param iteratorAge the function is behind the stream: items written now are scheduled late
     * @param functionErrors invocations failed; the event source mapping retries them
     * @param deadLetters record ranges gave up after their retries: those items are not scheduled
     *     (native TTL still deletes them, late)
     * @param executionsFailed an expiry execution failed, e.g. DeleteItem or the bucket function kept
     *     failing past its retries
     * @param executionsTimedOut an execution ran into Step Functions' one-year limit
     * @param modeAlarms alarms on the mode's own resources (windowed: the bucket function failed)
     * @param expiryLag the expiry lag's p99 is above the threshold: items are deleted late
     * @param backstopWins native TTL deleted an item: Punctual did not delete it on time
     */
    ExpiryAlarms(Alarm iteratorAge, Alarm functionErrors, Alarm deadLetters, Alarm executionsFailed,
            Alarm executionsTimedOut, List<Alarm> modeAlarms, Alarm expiryLag, Alarm backstopWins) {
        this.iteratorAge = Objects.requireNonNull(iteratorAge);
        this.functionErrors = Objects.requireNonNull(functionErrors);
        this.deadLetters = Objects.requireNonNull(deadLetters);
        this.executionsFailed = Objects.requireNonNull(executionsFailed);
        this.executionsTimedOut = Objects.requireNonNull(executionsTimedOut);
        this.modeAlarms = List.copyOf(modeAlarms);
        this.expiryLag = Objects.requireNonNull(expiryLag);
        this.backstopWins = Objects.requireNonNull(backstopWins);
    }

    /** The stream function is behind the table's stream: items written now are scheduled late. */
    public Alarm iteratorAge() {
        return iteratorAge;
    }

    /** The stream function failed; the event source mapping retries the batch. */
    public Alarm functionErrors() {
        return functionErrors;
    }

    /** Record ranges were given up on after their retries: those items are not scheduled. */
    public Alarm deadLetters() {
        return deadLetters;
    }

    /** An execution of the mode's state machine failed: its items were not deleted on time. */
    public Alarm executionsFailed() {
        return executionsFailed;
    }

    /** An execution of the mode's state machine ran into Step Functions' one-year limit. */
    public Alarm executionsTimedOut() {
        return executionsTimedOut;
    }

    /** Windowed mode: the bucket function failed (its execution retries the bucket). Empty per item. */
    public Optional<Alarm> bucketFunctionErrors() {
        return modeAlarms.stream().filter(alarm -> alarm.getNode().getId().equals("BucketFunctionErrorsAlarm")).findFirst();
    }

    /** The alarms the construct's mode adds on its own resources; empty per item. */
    public List<Alarm> modeAlarms() {
        return modeAlarms;
    }

    /** The expiry lag's p99 is above {@link PunctualExpiryProps#lagAlarmThreshold()}. */
    public Alarm expiryLag() {
        return expiryLag;
    }

    /** Native TTL deleted at least one item: Punctual missed it (the backstop won). */
    public Alarm backstopWins() {
        return backstopWins;
    }

    /** Every alarm, e.g. to add actions or put them on a dashboard. */
    public List<Alarm> all() {
        List<Alarm> all = new ArrayList<>(List.of(iteratorAge, functionErrors, deadLetters, executionsFailed,
                executionsTimedOut));
        all.addAll(modeAlarms);
        all.add(expiryLag);
        all.add(backstopWins);
        return List.copyOf(all);
    }
}
