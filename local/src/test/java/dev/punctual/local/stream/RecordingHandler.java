package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

/** A fake function that records every batch and answers as the test scripts it (by invocation number). */
final class RecordingHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {

    private final List<List<DynamodbStreamRecord>> batches = new CopyOnWriteArrayList<>();
    private volatile BiFunction<Integer, List<DynamodbStreamRecord>, StreamsEventResponse> script;

    RecordingHandler() {
        this((number, records) -> new StreamsEventResponse(List.of()));
    }

    RecordingHandler(BiFunction<Integer, List<DynamodbStreamRecord>, StreamsEventResponse> script) {
        this.script = script;
    }

    void script(BiFunction<Integer, List<DynamodbStreamRecord>, StreamsEventResponse> value) {
        script = value;
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        List<DynamodbStreamRecord> records = List.copyOf(event.getRecords());
        batches.add(records);
        return script.apply(batches.size(), records);
    }

    List<List<DynamodbStreamRecord>> batches() {
        return List.copyOf(batches);
    }

    /** Sequence numbers of every batch, in invocation order. */
    List<List<String>> sequenceBatches() {
        List<List<String>> result = new ArrayList<>();
        for (List<DynamodbStreamRecord> batch : batches) {
            result.add(batch.stream().map(r -> r.getDynamodb().getSequenceNumber()).toList());
        }
        return result;
    }

    /** Every delivered record, flattened. */
    List<DynamodbStreamRecord> records() {
        return batches.stream().flatMap(List::stream).toList();
    }

    static StreamsEventResponse failing(String... sequenceNumbers) {
        List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>();
        for (String sequenceNumber : sequenceNumbers) {
            failures.add(new StreamsEventResponse.BatchItemFailure(sequenceNumber));
        }
        return new StreamsEventResponse(failures);
    }
}
