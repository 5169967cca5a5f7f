package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Records the poller gave up on, as an on-failure destination would receive them, plus the records.
 *
 * @param id         stable identifier, for {@link DeadLetters#redrive(String)}
 * @param table      the table (and its stream and TTL attribute) the records came from
 * @param message    the body AWS sends to an SQS/SNS on-failure destination for a DynamoDB stream:
 *                   {@code requestContext} (with {@code condition} {@code RetryAttemptsExhausted} or
 *                   {@code RecordAgeExceeded}), {@code responseContext}, {@code version},
 *                   {@code timestamp} and {@code DDBStreamBatchInfo}
 * @param records    the records themselves, as the function was given them (AWS keeps only their
 *                   position in the stream, which expires after 24 hours)
 * @param mode       the label of the expiry mode the runtime handled the table's records in when it gave
 *                   up on them ({@code per-item}, {@code windowed}), which a redrive hands them to again;
 *                   {@code null} for a dead letter filed before runtimes recorded it
 * @param redrivenAt when a redrive succeeded, or {@code null}
 */
public record DeadLetter(String id, WatchedTable table, String mode, ObjectNode message, List<DynamodbStreamRecord> records,
                         Instant redrivenAt) {

    /** Condition when retries ran out. */
    public static final String RETRY_ATTEMPTS_EXHAUSTED = "RetryAttemptsExhausted";
    /** Condition when records grew older than the maximum record age. */
    public static final String RECORD_AGE_EXCEEDED = "RecordAgeExceeded";

    public DeadLetter {
        records = List.copyOf(records);
    }

    /** {@code RetryAttemptsExhausted} or {@code RecordAgeExceeded}. */
    public String condition() {
        return message.path("requestContext").path("condition").asText();
    }

    /** When the records were given up on. */
    public Instant timestamp() {
        return Instant.parse(message.path("timestamp").asText());
    }

    /** The mode the records were handled in when they were given up on, if the runtime recorded it. */
    public Optional<String> handledInMode() {
        return Optional.ofNullable(mode);
    }

    /** This dead letter, redriven at {@code at}. */
    DeadLetter redrivenAt(Instant at) {
        return new DeadLetter(id, table, mode, message, records, at);
    }

    /** When a redrive succeeded, if one did. */
    public Optional<Instant> redriven() {
        return Optional.ofNullable(redrivenAt);
    }
}
