package dev.punctual.cdk;

import java.util.List;
import software.amazon.awscdk.services.cloudwatch.Alarm;

/**
 * The alarms {@link PunctualExpiry} creates, one per way expiries can go late or missing.
 *
 * @param iteratorAge the function is behind the stream: items written now are scheduled late
 * @param functionErrors invocations failed; the event source mapping retries them
 * @param deadLetters record ranges gave up after their retries: those items are not scheduled
 *     (native TTL still deletes them, late)
 * @param executionsFailed an expiry execution failed, e.g. DeleteItem kept failing past its retries
 * @param executionsTimedOut an execution ran into Step Functions' one-year limit
 */
public record ExpiryAlarms(Alarm iteratorAge, Alarm functionErrors, Alarm deadLetters, Alarm executionsFailed,
        Alarm executionsTimedOut) {

    /** Every alarm, e.g. to add actions or put them on a dashboard. */
    public List<Alarm> all() {
        return List.of(iteratorAge, functionErrors, deadLetters, executionsFailed, executionsTimedOut);
    }
}
