package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.statemachine.ExecutionStatusEvents;
import dev.punctual.windowed.BucketGenerations;
import dev.punctual.windowed.BucketInput;
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
 * <p>EventBridge delivers at least once, so the same event may come twice: both deliveries name the
 * same successor, and the second finds it running. An event that is not about this function's state
 * machine, or whose input is not a bucket's, is logged and dropped: delivering it again cannot help.
 */
final class BucketHealing {

    private static final Logger LOG = LoggerFactory.getLogger(BucketHealing.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() { };

    private final BucketGenerations generations;
    private final String stateMachineArn;

    /** @param stateMachineArn the bucket state machine: events about any other are dropped */
    BucketHealing(BucketGenerations generations, String stateMachineArn) {
        this.generations = Objects.requireNonNull(generations, "generations");
        this.stateMachineArn = Objects.requireNonNull(stateMachineArn, "stateMachineArn");
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
