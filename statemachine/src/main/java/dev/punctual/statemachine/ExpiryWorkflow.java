package dev.punctual.statemachine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The facts {@code expire-item.asl.json} relies on: the fields of its input, its substitutions,
 * the outcomes its output reports and its long-horizon hop. Whoever starts an execution (the stream
 * handler, backfill, the local runtime) builds the input from these names.
 */
public final class ExpiryWorkflow {

    /** Input: the table that holds the item. */
    public static final String TABLE = "table";
    /** Input: the item's primary key as a DynamoDB-JSON map, exactly as the stream record carries it. */
    public static final String KEY = "key";
    /** Input: the name of the TTL attribute. */
    public static final String TTL_ATTRIBUTE = "ttlAttribute";
    /** Input: the TTL Number exactly as stored (its string form), compared by the conditional delete. */
    public static final String TTL = "ttl";
    /** Input: RFC 3339 UTC instant to delete at, the TTL rounded up to the whole second. */
    public static final String EXPIRE_AT = "expireAt";
    /** Input: how many whole horizons to wait before the final wait (0 for TTLs within one horizon). */
    public static final String HORIZON_HOPS = "horizonHops";
    /** Input: the first execution's name; successors are named {@code <chainName>-h<hopsLeft>}. */
    public static final String CHAIN_NAME = "chainName";

    /** Output field naming the outcome. */
    public static final String OUTCOME = "outcome";
    /** Outcome: the item was deleted at its TTL. */
    public static final String OUTCOME_EXPIRED = "Expired";
    /** Outcome: the item's TTL changed or the item was gone, nothing deleted. */
    public static final String OUTCOME_SUPERSEDED = "Superseded";
    /** Outcome: a horizon passed and a successor execution carries on. */
    public static final String OUTCOME_CONTINUED = "ContinuedAsNew";

    /**
     * The error a stale execution is stopped with: its item's TTL changed or the item was deleted
     * before the TTL, so the wait it holds is for nothing.
     */
    public static final String ERROR_STALE = "Punctual.Stale";

    /** Substitution: the AWS partition in resource ARNs. */
    public static final String PARTITION = "Partition";

    /**
     * One hop of a long wait. A Standard execution is stopped with {@code States.Timeout} after one
     * year; 360 days leaves five days for the hops' own start-up and any retries. Must equal the
     * {@code WaitOneHorizon} state's {@code Seconds} (a test holds them together).
     */
    public static final Duration HORIZON = Duration.ofDays(360);

    private static final ObjectMapper JSON = new ObjectMapper();

    private ExpiryWorkflow() {
    }

    /**
     * The outcome an execution's output reports ({@link #OUTCOME_EXPIRED}, {@link #OUTCOME_SUPERSEDED},
     * {@link #OUTCOME_CONTINUED}); empty when there is no output, it is not JSON, or it names no outcome
     * as a string. The one reader of the field: the handler, the trial and the tests all ask here.
     */
    public static Optional<String> outcomeOf(String output) {
        if (output == null) {
            return Optional.empty();
        }
        try {
            JsonNode outcome = JSON.readTree(output).path(OUTCOME);
            return outcome.isTextual() ? Optional.of(outcome.asText()) : Optional.empty();
        } catch (JsonProcessingException e) {
            // Our workflows write JSON outputs; anything else reports no outcome.
            return Optional.empty();
        }
    }

    /** The substitutions {@code expire-item.asl.json} needs, for one partition. */
    public static Map<String, String> substitutions(String partition) {
        return Map.of(PARTITION, partition);
    }
}
