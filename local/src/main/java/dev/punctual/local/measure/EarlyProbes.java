package dev.punctual.local.measure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

/**
 * The "early" cross-check that does not trust the execution history: shortly before each whole
 * second, reads (consistently, over HTTP, as an application would) a sample of the items whose TTL
 * is that second. Every one of them was written before the read and must still be there; one that
 * is not was deleted early. Sampling keeps the reads from competing with the deletes they check.
 */
final class EarlyProbes {

    /** Items due at a second are probed when that second is this close... */
    private static final Duration PROBE_WINDOW = Duration.ofMillis(600);
    /** ...and not closer than this, so the read ends before the TTL. */
    private static final Duration PROBE_MARGIN = Duration.ofMillis(150);
    /** Items probed per TTL second at most. */
    private static final int PROBE_SAMPLE = 100;
    private static final int BATCH_GET_LIMIT = 100;

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final long[] ttls;
    private final AtomicLongArray writtenAt;
    private final Clock clock;
    private final BitSet seenGoneEarly;
    private int next;

    /**
     * Probes of the items of {@code table} ({@link TrialTable#itemId item-i} due at {@code ttls[i]},
     * written at {@code writtenAt[i]}, epoch millis on {@code clock}).
     */
    EarlyProbes(DynamoDbClient dynamoDb, String table, long[] ttls, AtomicLongArray writtenAt, Clock clock) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.ttls = ttls;
        this.writtenAt = writtenAt;
        this.clock = clock;
        this.seenGoneEarly = new BitSet(ttls.length);
    }

    /** The items a probe found gone before their TTL. */
    BitSet seenGoneEarly() {
        return seenGoneEarly;
    }

    /** Probes the items due at the next whole second once {@code now} is within the probe window of it. */
    void probeBefore(Instant now) {
        while (next < ttls.length && ttls[next] * 1000 <= now.toEpochMilli() + PROBE_WINDOW.toMillis()) {
            long second = ttls[next];
            int from = next;
            while (next < ttls.length && ttls[next] == second) {
                next++;
            }
            if (second * 1000 - now.toEpochMilli() > PROBE_MARGIN.toMillis()) {
                probe(from, next, second);
            }
        }
    }

    private void probe(int from, int to, long second) {
        int step = Math.max(1, (to - from + PROBE_SAMPLE - 1) / PROBE_SAMPLE);
        List<Integer> sample = new ArrayList<>();
        for (int i = from; i < to; i += step) {
            sample.add(i);
        }
        long readStart = clock.millis();
        BitSet found = new BitSet(ttls.length);
        for (int at = 0; at < sample.size(); at += BATCH_GET_LIMIT) {
            List<Integer> chunk = sample.subList(at, Math.min(sample.size(), at + BATCH_GET_LIMIT));
            List<Map<String, AttributeValue>> keys = new ArrayList<>();
            chunk.forEach(i -> keys.add(TrialTable.key(TrialTable.itemId(i))));
            Map<String, KeysAndAttributes> pending = Map.of(table, KeysAndAttributes.builder().keys(keys)
                    .consistentRead(true).projectionExpression("#id")
                    .expressionAttributeNames(Map.of("#id", TrialTable.KEY_ATTRIBUTE)).build());
            while (!pending.isEmpty()) {
                Map<String, KeysAndAttributes> request = pending;
                BatchGetItemResponse response = dynamoDb.batchGetItem(r -> r.requestItems(request));
                response.responses().getOrDefault(table, List.of())
                        .forEach(item -> found.set(TrialTable.indexOf(item.get(TrialTable.KEY_ATTRIBUTE).s())));
                pending = response.unprocessedKeys();
            }
        }
        long readEnd = clock.millis();
        if (readEnd >= second * 1000) {
            return; // the read reached the TTL itself: a missing item proves nothing
        }
        for (int i : sample) {
            long written = writtenAt.get(i);
            if (written != 0 && written <= readStart && !found.get(i)) {
                seenGoneEarly.set(i);
            }
        }
    }
}
