package dev.punctual.local.measure;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stream.StreamPoller;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * A trial's table: created as a user's table with a stream and TTL, and watched by the runtime's
 * poller; its items ({@code item-0000000}, ...) written in batches, in TTL order, by concurrent
 * writers; scanned once at the end.
 */
final class TrialTable {

    /** The TTL attribute of a trial table. */
    static final String TTL_ATTRIBUTE = "expiresAt";
    static final String KEY_ATTRIBUTE = "id";
    private static final int BATCH_WRITE_LIMIT = 25;
    private static final Duration PICKUP_LIMIT = Duration.ofSeconds(30);

    private final DynamoDbClient dynamoDb;
    private final String name;
    private final Clock clock;

    private TrialTable(DynamoDbClient dynamoDb, String name, Clock clock) {
        this.dynamoDb = dynamoDb;
        this.name = name;
        this.clock = clock;
    }

    /** Creates table {@code name} on {@code runtime} and returns once the stream poller watches it. */
    static TrialTable create(LocalRuntime runtime, String name, TrialPolls polls) throws InterruptedException {
        DynamoDbClient dynamoDb = runtime.dynamoDb();
        dynamoDb.createTable(r -> r.tableName(name)
                .keySchema(KeySchemaElement.builder().attributeName(KEY_ATTRIBUTE).keyType(KeyType.HASH).build())
                .attributeDefinitions(AttributeDefinition.builder().attributeName(KEY_ATTRIBUTE)
                        .attributeType(ScalarAttributeType.S).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
        dynamoDb.updateTimeToLive(r -> r.tableName(name)
                .timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL_ATTRIBUTE)));
        StreamPoller poller = runtime.streamPoller();
        boolean watched = polls.until(polls.clock().instant().plus(PICKUP_LIMIT), TrialPolls.TICK, now -> {
            if (poller.watchedTables().stream().anyMatch(t -> t.tableName().equals(name))) {
                return true;
            }
            poller.discoverTables();
            return false;
        });
        if (!watched) {
            throw new IllegalStateException("The stream poller did not pick up table " + name + " within "
                    + PICKUP_LIMIT.toSeconds() + " s");
        }
        return new TrialTable(dynamoDb, name, polls.clock());
    }

    /** {@code n} TTLs from {@code firstTtl} on, evenly over {@code spreadSeconds}, in order. */
    static long[] spread(long firstTtl, int n, long spreadSeconds) {
        long[] ttls = new long[n];
        for (int i = 0; i < n; i++) {
            ttls[i] = firstTtl + (long) i * spreadSeconds / n;
        }
        return ttls;
    }

    /**
     * Writes an item {@link #itemId(int) item-i} per TTL on {@code writers} threads, in TTL order so
     * early TTLs are written (and scheduled) first; returns when each was written (epoch millis).
     *
     * @throws ExpiryTrial.LeadTooShortException once {@code firstTtl} comes before every item is written
     */
    AtomicLongArray write(long[] ttls, int writers, Instant firstTtl, ExpiryTrial.Progress progress)
            throws InterruptedException {
        int n = ttls.length;
        AtomicLongArray writtenAt = new AtomicLongArray(n);
        AtomicLong written = new AtomicLong();
        Instant start = clock.instant();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> batches = new ArrayList<>();
            for (int from = 0; from < n; from += BATCH_WRITE_LIMIT) {
                int first = from;
                int end = Math.min(n, from + BATCH_WRITE_LIMIT);
                batches.add(pool.submit(() -> {
                    Instant now = clock.instant();
                    if (!now.isBefore(firstTtl)) {
                        throw ExpiryTrial.LeadTooShortException.atRate(written.get(), n, Duration.between(start, now));
                    }
                    writeBatch(ttls, first, end, TrialTable::itemId, writtenAt,
                            count -> progress.written(written.addAndGet(count)));
                }));
            }
            for (Future<?> batch : batches) {
                batch.get();
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ExpiryTrial.LeadTooShortException leadTooShort) {
                throw leadTooShort;
            }
            throw new IllegalStateException("Writing the trial items failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return writtenAt;
    }

    /** Writes an item {@code ids.apply(i)} per TTL, in batches, in order, on this thread. */
    void writeInOrder(long[] ttls, IntFunction<String> ids) {
        AtomicLongArray writtenAt = new AtomicLongArray(ttls.length);
        for (int from = 0; from < ttls.length; from += BATCH_WRITE_LIMIT) {
            writeBatch(ttls, from, Math.min(ttls.length, from + BATCH_WRITE_LIMIT), ids, writtenAt, count -> { });
        }
    }

    /** Writes items {@code from} (inclusive) to {@code to} with their TTLs, in batches, on this thread. */
    void writeRange(long[] ttls, int from, int to) {
        for (int first = from; first < to; first += BATCH_WRITE_LIMIT) {
            writeBatch(ttls, first, Math.min(to, first + BATCH_WRITE_LIMIT), TrialTable::itemId, null, count -> { });
        }
    }

    /** Writes one batch; records when in {@code writtenAt} unless it is {@code null}. */
    private void writeBatch(long[] ttls, int from, int to, IntFunction<String> ids, AtomicLongArray writtenAt,
            LongConsumer done) {
        List<WriteRequest> requests = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            requests.add(WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                    KEY_ATTRIBUTE, AttributeValue.fromS(ids.apply(i)),
                    TTL_ATTRIBUTE, AttributeValue.fromN(Long.toString(ttls[i])),
                    "note", AttributeValue.fromS("written by the Punctual trial")))
                    .build()).build());
        }
        Map<String, List<WriteRequest>> pending = Map.of(name, requests);
        while (!pending.isEmpty() && !pending.getOrDefault(name, List.of()).isEmpty()) {
            Map<String, List<WriteRequest>> request = pending;
            pending = dynamoDb.batchWriteItem(r -> r.requestItems(request)).unprocessedItems();
        }
        long now = clock.millis();
        for (int i = from; writtenAt != null && i < to; i++) {
            writtenAt.set(i, now);
        }
        done.accept(to - from);
    }

    /** Which items ({@link #indexOf by index}) are in the table now, by one consistent scan. */
    BitSet scan() {
        BitSet present = new BitSet();
        dynamoDb.scanPaginator(r -> r.tableName(name).projectionExpression("#id")
                .expressionAttributeNames(Map.of("#id", KEY_ATTRIBUTE)).consistentRead(true))
                .items().forEach(item -> present.set(indexOf(item.get(KEY_ATTRIBUTE).s())));
        return present;
    }

    /** A trial item's key, as DynamoDB and the deletion ledger hold it. */
    static Map<String, AttributeValue> key(String id) {
        return Map.of(KEY_ATTRIBUTE, AttributeValue.fromS(id));
    }

    /** The id of the item with index {@code index}. */
    static String itemId(int index) {
        return String.format("item-%07d", index);
    }

    /** The index of the item with id {@code itemId}. */
    static int indexOf(String itemId) {
        return Integer.parseInt(itemId.substring("item-".length()));
    }
}
