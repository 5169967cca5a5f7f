package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.ExecutionStatusEvents;
import dev.punctual.windowed.BucketGenerations;
import dev.punctual.windowed.BucketInput;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bucket function's second input: a Step Functions status-change event (delivered by an
 * EventBridge rule, {@link ExecutionStatusEvents#unfinishedPattern}) saying a bucket execution ended
 * {@code FAILED}, {@code TIMED_OUT} or {@code ABORTED}. It starts that bucket's successor generation
 * ({@link BucketGenerations#replace}), so a bucket nobody else will come back to (sealed, then failed
 * while deleting) still has its items deleted. One log line per event: the bucket, what ended, and
 * what now holds it; never an item key.
 *
 * <p>Its third input is a scheduled rule's event, every {@link ExecutionStatusEvents#SWEEP_INTERVAL}: the
 * sweep, which replaces what a lost or undelivered status change left behind ({@link #sweep}).
 *
 * <p>EventBridge delivers at least once, so the same event may come twice: both deliveries name the
 * same successor, and the second finds it running. An event that is not about this function's state
 * machine, or whose input is not a bucket's, is logged and dropped: delivering it again cannot help.
 */
final class BucketHealing {

    private static final Logger LOG = LoggerFactory.getLogger(BucketHealing.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() { };

    private final Executions buckets;
    private final BucketGenerations generations;
    private final String stateMachineArn;

    /**
     * @param buckets the bucket state machine's executions
     * @param stateMachineArn the bucket state machine: events about any other are dropped
     */
    BucketHealing(Executions buckets, Clock clock, String stateMachineArn) {
        this.buckets = Objects.requireNonNull(buckets, "buckets");
        this.generations = new BucketGenerations(buckets, clock);
        this.stateMachineArn = Objects.requireNonNull(stateMachineArn, "stateMachineArn");
    }

    /** Whether {@code payload} is the sweep's scheduled event ({@link ExecutionStatusEvents#SWEEP_INTERVAL}). */
    static boolean isSweep(Map<String, ?> payload) {
        return payload != null && ExecutionStatusEvents.SCHEDULED_SOURCE.equals(payload.get("source"))
                && ExecutionStatusEvents.SCHEDULED_DETAIL_TYPE.equals(payload.get("detail-type"));
    }

    /**
     * The backstop for status changes that never arrived: replaces every bucket execution that ended
     * unfinished within {@link ExecutionStatusEvents#SWEEP_LOOKBACK} of {@code now}. Those already
     * replaced are found so in a start and a describe each; one line sums the sweep up.
     */
    Map<String, Object> sweep(Instant now, ThrottleBackoff.Batch retries) {
        int checked = 0;
        int abandoned = 0;
        int ignored = 0;
        for (Executions.Ended ended : retries.call(() -> buckets.endedUnfinishedSince(now.minus(ExecutionStatusEvents.SWEEP_LOOKBACK)))) {
            BucketInput unfinished;
            try {
                unfinished = BucketInput.fromPayload(JSON.readValue(ended.input(), OBJECT));
            } catch (JsonProcessingException | IllegalArgumentException e) {
                ignored++;
                continue;
            }
            if (!unfinished.executionName().equals(ended.name())) {
                // Started by hand under another name: not one of a bucket's generations.
                ignored++;
                continue;
            }
            checked++;
            if (generations.replace(unfinished, retries).state() == BucketGenerations.State.ABANDONED) {
                abandoned++;
            }
        }
        LOG.info("swept the bucket executions that ended unfinished: each bucket is held by its live generation, or abandoned",
                entry("outcome", "swept"), entry("checked", checked), entry("abandoned", abandoned), entry("ignored", ignored));
        Map<String, Object> output = new LinkedHashMap<>();
        output.put("outcome", "Swept");
        output.put("checked", checked);
        output.put("abandoned", abandoned);
        output.put("ignored", ignored);
        return output;
    }

    /** Whether {@code payload} is a Step Functions status-change event rather than a bucket to work. */
    static boolean isStatusChange(Map<String, ?> payload) {
        return payload != null && ExecutionStatusEvents.SOURCE.equals(payload.get("source"))
                && ExecutionStatusEvents.DETAIL_TYPE.equals(payload.get("detail-type"));
    }

    /**
     * Replaces the unfinished execution the event names, retrying throttled calls within {@code retries}.
     *
     * @return the function's output: the outcome, and the execution that now holds the bucket
     */
    Map<String, Object> heal(Map<String, ?> event, ThrottleBackoff.Batch retries) {
        Object detailValue = event.get("detail");
        Map<?, ?> detail = detailValue instanceof Map<?, ?> map ? map : Map.of();
        String status = String.valueOf(detail.get(ExecutionStatusEvents.STATUS));
        String execution = String.valueOf(detail.get(ExecutionStatusEvents.NAME));
        if (!stateMachineArn.equals(detail.get(ExecutionStatusEvents.STATE_MACHINE_ARN))
                || !ExecutionStatusEvents.UNFINISHED.contains(status)) {
            LOG.warn("status change ignored: not an unfinished execution of this function's bucket state machine",
                    entry("execution", execution), entry("status", status), entry("outcome", "ignored"));
            return output("Ignored", execution);
        }
        BucketInput unfinished;
        try {
            unfinished = BucketInput.fromPayload(JSON.readValue(String.valueOf(detail.get(ExecutionStatusEvents.INPUT)), OBJECT));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            String reason = e instanceof JsonProcessingException json ? "input is not JSON: " + json.getOriginalMessage() : e.getMessage();
            LOG.error("status change ignored: the execution's input is not a bucket's: " + reason,
                    entry("execution", execution), entry("status", status), entry("outcome", "ignored"));
            return output("Ignored", execution);
        }
        BucketGenerations.Live live = generations.replace(unfinished, retries);
        if (live.state() == BucketGenerations.State.ABANDONED) {
            LOG.error("bucket abandoned: its last generation ended " + status + "; no execution will delete its items,"
                            + " which native TTL still will; see the execution's history for the error",
                    entry("table", unfinished.bucket().table()), entry("bucketLevel", unfinished.bucket().level().label()),
                    entry("execution", execution), entry("status", status), entry("generation", live.generation()),
                    entry("outcome", "abandoned"));
        } else {
            LOG.warn("bucket execution ended unfinished; its live generation holds the bucket now",
                    entry("table", unfinished.bucket().table()), entry("bucketLevel", unfinished.bucket().level().label()),
                    entry("execution", execution), entry("status", status), entry("successor", live.execution()),
                    entry("generation", live.generation()), entry("outcome", live.state().name().toLowerCase(java.util.Locale.ROOT)));
        }
        return output(switch (live.state()) {
            case RUNNING -> "Replaced";
            case FINISHED -> "Finished";
            case ABANDONED -> "Abandoned";
        }, live.execution());
    }

    private static Map<String, Object> output(String outcome, String execution) {
        Map<String, Object> output = new LinkedHashMap<>();
        output.put("outcome", outcome);
        output.put("execution", execution);
        return output;
    }
}
