package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import java.time.Instant;
import java.util.List;

/**
 * A record read from a shard and not yet processed.
 *
 * @param record the record as the function receives it
 * @param matches whether it passes the mapping's filter criteria (one that does not is skipped)
 * @param fetchedAt when it was read, from which the batching window counts
 * @param arrival when it entered the stream, from which its age counts
 */
record FetchedRecord(String sequenceNumber, DynamodbStreamRecord record, boolean matches, Instant fetchedAt,
                     Instant arrival) {

    /** The records as the function receives them. */
    static List<DynamodbStreamRecord> lambdaRecords(List<FetchedRecord> records) {
        return records.stream().map(FetchedRecord::record).toList();
    }

    static FetchedRecord last(List<FetchedRecord> records) {
        return records.get(records.size() - 1);
    }
}
