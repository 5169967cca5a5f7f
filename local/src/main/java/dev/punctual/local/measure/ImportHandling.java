package dev.punctual.local.measure;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * How the stream handler kept up while a bulk import was being written: the records it finished, the
 * batches (invocations) they came in, and its DynamoDB and Step Functions calls by kind over the same
 * span. What it had not finished when the last write returned is the backlog the items written next
 * wait behind.
 *
 * @param importItems items the import wrote
 * @param writing from the import's first write until its last returned
 * @param recordsHandled the import's records the handler finished within {@code writing}
 * @param batches the handler's invocations within {@code writing}
 * @param calls the handler's calls within {@code writing}, by kind ({@link dev.punctual.local.billing.HandlerCalls})
 */
public record ImportHandling(int importItems, Duration writing, long recordsHandled, long batches, Map<String, Long> calls) {

    public ImportHandling {
        calls = Map.copyOf(calls);
    }

    /** Records the handler finished per second while the import was written. */
    public double recordsPerSecond() {
        return writing.isZero() ? 0 : recordsHandled / (writing.toMillis() / 1e3);
    }

    /** The import's records not yet finished by the handler when its last write returned. */
    public long backlogAtEnd() {
        return Math.max(0, importItems - recordsHandled);
    }

    /** Records per batch, on average. */
    public double recordsPerBatch() {
        return batches == 0 ? 0 : (double) recordsHandled / batches;
    }

    /** Calls per batch, by kind, on average. */
    public Map<String, Double> callsPerBatch() {
        Map<String, Double> perBatch = new TreeMap<>();
        calls.forEach((kind, count) -> perBatch.put(kind, batches == 0 ? 0 : (double) count / batches));
        return perBatch;
    }

    String toJson() {
        return String.format(Locale.ROOT,
                "{\"recordsPerSecond\":%.0f,\"backlogAtEnd\":%d,\"batches\":%d,\"recordsPerBatch\":%.1f,\"callsPerBatch\":{%s}}",
                recordsPerSecond(), backlogAtEnd(), batches, recordsPerBatch(), callsPerBatch().entrySet().stream()
                        .map(e -> String.format(Locale.ROOT, "\"%s\":%.2f", e.getKey(), e.getValue()))
                        .collect(Collectors.joining(",")));
    }

    String toText() {
        return String.format(Locale.ROOT, String.join("%n",
                        "handler            %.0f records/s while the import was written, %d left when it ended",
                        "batches            %d, %.1f records each; calls per batch: %s"),
                recordsPerSecond(), backlogAtEnd(), batches, recordsPerBatch(), callsPerBatch().entrySet().stream()
                        .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", ")));
    }
}
