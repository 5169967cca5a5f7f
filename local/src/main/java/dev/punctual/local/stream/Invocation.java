package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.statemachine.StreamWiring;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * One synchronous invocation of the function with a batch, and how Lambda reads its answer with
 * {@code ReportBatchItemFailures} on: no response, a null or empty failure list means success; failures
 * naming records of the batch mean everything before the lowest of them succeeded; a failure with an
 * empty, null or unknown identifier, or an exception, fails the whole batch.
 */
final class Invocation {

    /** Outcome of one invocation. */
    sealed interface Outcome permits Succeeded, FailedFrom, FailedWhole {
    }

    /** Every record succeeded. */
    record Succeeded() implements Outcome {
    }

    /**
     * Records before {@code index} succeeded; the one at {@code index} (the lowest failed sequence
     * number) and those after it are to be retried.
     */
    record FailedFrom(int index, List<String> reported) implements Outcome {
    }

    /** The whole batch failed; {@code functionError} is {@code Unhandled} when the function threw. */
    record FailedWhole(String reason, String functionError) implements Outcome {
    }

    private Invocation() {
    }

    static Outcome invoke(RequestHandler<DynamodbEvent, StreamsEventResponse> handler, List<DynamodbStreamRecord> records,
                          String tableName, String region, java.time.Clock clock) {
        DynamodbEvent event = new DynamodbEvent();
        event.setRecords(new ArrayList<>(records));
        StreamsEventResponse response;
        try {
            response = handler.handleRequest(event, new LocalLambdaContext(LocalLambdaContext.functionName(tableName),
                    StreamWiring.STREAM_FUNCTION_MEMORY_MB, region, clock));
        } catch (RuntimeException | Error e) {
            return new FailedWhole("function threw " + e.getClass().getName() + ": " + e.getMessage(), "Unhandled");
        }
        return read(response, records);
    }

    static Outcome read(StreamsEventResponse response, List<DynamodbStreamRecord> records) {
        if (response == null || response.getBatchItemFailures() == null || response.getBatchItemFailures().isEmpty()) {
            return new Succeeded();
        }
        int lowest = -1;
        BigInteger lowestSequence = null;
        List<String> reported = new ArrayList<>();
        for (StreamsEventResponse.BatchItemFailure failure : response.getBatchItemFailures()) {
            String identifier = failure == null ? null : failure.getItemIdentifier();
            int index = indexOf(records, identifier);
            if (index < 0) {
                return new FailedWhole("function reported failed item '" + identifier
                        + "', which is not a sequence number of the batch", null);
            }
            reported.add(identifier);
            BigInteger sequence = new BigInteger(identifier);
            if (lowestSequence == null || sequence.compareTo(lowestSequence) < 0) {
                lowestSequence = sequence;
                lowest = index;
            }
        }
        return new FailedFrom(lowest, List.copyOf(reported));
    }

    private static int indexOf(List<DynamodbStreamRecord> records, String sequenceNumber) {
        if (sequenceNumber == null || sequenceNumber.isEmpty()) {
            return -1;
        }
        for (int i = 0; i < records.size(); i++) {
            if (sequenceNumber.equals(records.get(i).getDynamodb().getSequenceNumber())) {
                return i;
            }
        }
        return -1;
    }
}
