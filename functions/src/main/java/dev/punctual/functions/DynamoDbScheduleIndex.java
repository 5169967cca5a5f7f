package dev.punctual.functions;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import dev.punctual.windowed.IndexChunk;
import dev.punctual.windowed.IndexEntry;
import dev.punctual.windowed.MinutePart;
import dev.punctual.windowed.RunnerMark;
import dev.punctual.windowed.ScheduleIndex;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * {@link ScheduleIndex} on a DynamoDB table laid out as {@link ScheduleIndexTable} describes. Entry
 * partitions are {@code <table>|<minute start>}, sort keys {@code <second>|<chunk digest>}: one
 * second's entries are a {@code begins_with} range of one partition, and a minute's seconds one
 * query. Every read is strongly consistent.
 */
public final class DynamoDbScheduleIndex implements ScheduleIndex {

    private static final String SEAL_PREFIX = "seal|";
    /** Every item this index writes carries its {@link Contract#INDEX_ITEM} version. */
    private static final AttributeValue CONTRACT = AttributeValue.fromN(Integer.toString(Contract.INDEX_ITEM.version()));

    private final DynamoDbClient dynamoDb;
    private final String indexTable;

    /** An index on {@code indexTable}, through a client the caller owns. */
    public DynamoDbScheduleIndex(DynamoDbClient dynamoDb, String indexTable) {
        this.dynamoDb = dynamoDb;
        this.indexTable = indexTable;
    }

    /** The partition key of {@code table}'s entries due in {@code second}: its minute's. */
    public static String entryPartition(String table, long second) {
        return table + "|" + BucketLevel.MINUTE.startOf(second);
    }

    /** The partition key of {@code bucket}'s seal (a minute's: its runners' marks). */
    public static String sealPartition(Bucket bucket) {
        return SEAL_PREFIX + bucket.table() + "|" + bucket.level().label() + "|" + bucket.start();
    }

    /** The bucket a seal's partition key names; empty for an entry's partition. */
    public static Optional<Bucket> sealedBucket(String partition) {
        if (!partition.startsWith(SEAL_PREFIX)) {
            return Optional.empty();
        }
        String[] parts = partition.substring(SEAL_PREFIX.length()).split("\\|");
        return Optional.of(new Bucket(parts[0], BucketLevel.fromLabel(parts[1]), Long.parseLong(parts[2])));
    }

    /** The table an entry's partition key belongs to. */
    public static String entryTable(String partition) {
        return partition.substring(0, partition.lastIndexOf('|'));
    }

    /** The second an entry's sort key is due in. */
    public static long entrySecond(String sortKey) {
        return Long.parseLong(sortKey.substring(0, sortKey.indexOf('|')));
    }

    @Override
    public void putChunk(String table, long second, String digest, Collection<IndexEntry> entries) {
        dynamoDb.putItem(r -> r.tableName(indexTable).item(chunkItem(table, second, digest, entries)));
    }

    /**
     * One {@code BatchWriteItem} per {@link #CHUNKS_PER_WRITE} chunks, in place of a {@code PutItem} each:
     * the same write units, a fraction of the requests. What DynamoDB leaves unprocessed (it throttled
     * part of the request) is written with {@code PutItem}, one at a time, whose throttling the client's
     * retry policy backs off from, so the call returns only once every chunk is written.
     */
    @Override
    public void putChunks(List<IndexChunk> chunks) {
        for (int from = 0; from < chunks.size(); from += CHUNKS_PER_WRITE) {
            List<WriteRequest> writes = new ArrayList<>();
            for (IndexChunk chunk : chunks.subList(from, Math.min(chunks.size(), from + CHUNKS_PER_WRITE))) {
                writes.add(WriteRequest.builder().putRequest(p -> p.item(
                        chunkItem(chunk.table(), chunk.second(), chunk.digest(), chunk.entries()))).build());
            }
            BatchWriteItemResponse response = dynamoDb.batchWriteItem(r -> r.requestItems(Map.of(indexTable, writes)));
            for (WriteRequest unprocessed : response.unprocessedItems().getOrDefault(indexTable, List.of())) {
                dynamoDb.putItem(r -> r.tableName(indexTable).item(unprocessed.putRequest().item()));
            }
        }
    }

    private static Map<String, AttributeValue> chunkItem(String table, long second, String digest, Collection<IndexEntry> entries) {
        List<AttributeValue> list = new ArrayList<>(entries.size());
        for (IndexEntry entry : entries) {
            list.add(AttributeValue.fromM(Map.of(
                    ScheduleIndexTable.ENTRY_KEY, AttributeValue.fromM(toAttributes(entry.key())),
                    ScheduleIndexTable.ENTRY_TTL, AttributeValue.fromS(entry.ttl()))));
        }
        return Map.of(
                Contract.FIELD, CONTRACT,
                ScheduleIndexTable.PARTITION_KEY, AttributeValue.fromS(entryPartition(table, second)),
                ScheduleIndexTable.SORT_KEY, AttributeValue.fromS(second + "|" + digest),
                ScheduleIndexTable.ENTRIES, AttributeValue.fromL(list),
                ScheduleIndexTable.EXPIRES_AT, AttributeValue.fromN(Long.toString(second + ScheduleIndexTable.RETENTION.toSeconds())));
    }

    @Override
    public List<IndexEntry> entriesDue(String table, long second) {
        List<IndexEntry> entries = new ArrayList<>();
        QueryRequest request = QueryRequest.builder()
                .tableName(indexTable)
                .consistentRead(true)
                .keyConditionExpression("#b = :b AND begins_with(#e, :second)")
                .expressionAttributeNames(Map.of("#b", ScheduleIndexTable.PARTITION_KEY, "#e", ScheduleIndexTable.SORT_KEY))
                .expressionAttributeValues(Map.of(":b", AttributeValue.fromS(entryPartition(table, second)),
                        ":second", AttributeValue.fromS(second + "|")))
                .build();
        for (QueryResponse page : dynamoDb.queryPaginator(request)) {
            for (Map<String, AttributeValue> chunk : page.items()) {
                checkContract(chunk);
                for (AttributeValue item : chunk.getOrDefault(ScheduleIndexTable.ENTRIES, AttributeValue.fromL(List.of())).l()) {
                    Map<String, AttributeValue> fields = item.m();
                    entries.add(new IndexEntry(fromAttributes(fields.get(ScheduleIndexTable.ENTRY_KEY).m()),
                            fields.get(ScheduleIndexTable.ENTRY_TTL).s(), second));
                }
            }
        }
        return entries;
    }

    @Override
    public OptionalLong nextDueSecond(String table, long minuteStart, long after) {
        // Seconds are ten digits until the year 2286, so their text sorts as they do.
        QueryResponse first = dynamoDb.query(minuteQuery(table, minuteStart)
                .keyConditionExpression("#b = :b AND #e >= :from")
                .expressionAttributeValues(Map.of(":b", AttributeValue.fromS(entryPartition(table, minuteStart)),
                        ":from", AttributeValue.fromS((Math.max(after, minuteStart - 1) + 1) + "|")))
                .limit(1).build());
        return first.items().isEmpty() ? OptionalLong.empty()
                : OptionalLong.of(entrySecond(first.items().get(0).get(ScheduleIndexTable.SORT_KEY).s()));
    }

    private QueryRequest.Builder minuteQuery(String table, long minuteStart) {
        return QueryRequest.builder()
                .tableName(indexTable)
                .consistentRead(true)
                .keyConditionExpression("#b = :b")
                .projectionExpression("#e")
                .expressionAttributeNames(Map.of("#b", ScheduleIndexTable.PARTITION_KEY, "#e", ScheduleIndexTable.SORT_KEY))
                .expressionAttributeValues(Map.of(":b", AttributeValue.fromS(entryPartition(table, minuteStart))));
    }

    @Override
    public void seal(Bucket bucket, Instant at) {
        dynamoDb.putItem(r -> r.tableName(indexTable).item(Map.of(
                Contract.FIELD, CONTRACT,
                ScheduleIndexTable.PARTITION_KEY, AttributeValue.fromS(sealPartition(bucket)),
                ScheduleIndexTable.SORT_KEY, AttributeValue.fromS(ScheduleIndexTable.SEAL_SORT_KEY),
                ScheduleIndexTable.SEALED_AT, AttributeValue.fromS(at.toString()),
                ScheduleIndexTable.EXPIRES_AT, AttributeValue.fromN(Long.toString(bucket.end() + ScheduleIndexTable.RETENTION.toSeconds())))));
    }

    @Override
    public boolean isSealed(Bucket bucket) {
        return dynamoDb.getItem(r -> r.tableName(indexTable).consistentRead(true)
                .projectionExpression("#b")
                .expressionAttributeNames(Map.of("#b", ScheduleIndexTable.PARTITION_KEY))
                .key(Map.of(ScheduleIndexTable.PARTITION_KEY, AttributeValue.fromS(sealPartition(bucket)),
                        ScheduleIndexTable.SORT_KEY, AttributeValue.fromS(ScheduleIndexTable.SEAL_SORT_KEY))))
                .hasItem();
    }

    @Override
    public RunnerMark runnerMark(Bucket minute, MinutePart part) {
        GetItemResponse seal = dynamoDb.getItem(r -> r.tableName(indexTable).consistentRead(true)
                .projectionExpression("#t, #n, #c")
                .expressionAttributeNames(Map.of("#t", ScheduleIndexTable.THROUGH, "#n", ScheduleIndexTable.NEXT,
                        "#c", Contract.FIELD))
                .key(markKey(minute, part)));
        return seal.hasItem() ? markOf(seal.item()) : RunnerMark.NOT_STARTED;
    }

    /** The mark a mark's item holds. */
    private static RunnerMark markOf(Map<String, AttributeValue> item) {
        checkContract(item);
        if (!item.containsKey(ScheduleIndexTable.THROUGH)) {
            return RunnerMark.NOT_STARTED;
        }
        AttributeValue next = item.get(ScheduleIndexTable.NEXT);
        return new RunnerMark(true, Long.parseLong(item.get(ScheduleIndexTable.THROUGH).n()),
                next == null ? Long.MIN_VALUE : Long.parseLong(next.n()));
    }

    @Override
    public RunnerMark begin(Bucket minute, MinutePart part) {
        // Unconditional, so it always answers the item: one write unit, as the conditional raise it replaces
        // (a failed condition is billed too); returning the new item costs nothing more.
        return markOf(dynamoDb.updateItem(r -> r.tableName(indexTable).key(markKey(minute, part))
                .updateExpression("SET #t = if_not_exists(#t, :v), #x = if_not_exists(#x, :x), #c = if_not_exists(#c, :c)")
                .expressionAttributeNames(Map.of("#t", ScheduleIndexTable.THROUGH, "#x", ScheduleIndexTable.EXPIRES_AT,
                        "#c", Contract.FIELD))
                .expressionAttributeValues(Map.of(":c", CONTRACT, ":v", AttributeValue.fromN(Long.toString(minute.start() - 1)),
                        ":x", AttributeValue.fromN(Long.toString(minute.end() + ScheduleIndexTable.RETENTION.toSeconds()))))
                .returnValues(ReturnValue.ALL_NEW)).attributes());
    }

    @Override
    public void advanceThrough(Bucket minute, MinutePart part, long second) {
        raise(minute, part, ScheduleIndexTable.THROUGH, second);
    }

    @Override
    public void recordNext(Bucket minute, MinutePart part, long second) {
        raise(minute, part, ScheduleIndexTable.NEXT, second);
    }

    /** Sets {@code attribute} of the part's mark to {@code value} unless it already holds as much or more. */
    private void raise(Bucket minute, MinutePart part, String attribute, long value) {
        try {
            dynamoDb.updateItem(r -> r.tableName(indexTable).key(markKey(minute, part))
                    .updateExpression("SET #a = :v, #x = if_not_exists(#x, :x), #c = if_not_exists(#c, :c)")
                    .conditionExpression("attribute_not_exists(#a) OR #a < :v")
                    .expressionAttributeNames(Map.of("#a", attribute, "#x", ScheduleIndexTable.EXPIRES_AT, "#c", Contract.FIELD))
                    .expressionAttributeValues(Map.of(":c", CONTRACT, ":v", AttributeValue.fromN(Long.toString(value)),
                            ":x", AttributeValue.fromN(Long.toString(minute.end() + ScheduleIndexTable.RETENTION.toSeconds())))));
        } catch (ConditionalCheckFailedException alreadyThere) {
            // Another runner of the minute (a duplicate, a retry) has raised it as far or further.
        }
    }

    /**
     * Where a minute part's mark lives: the main part's in the minute's seal item, the early part's in an
     * item of its own beside it ({@link ScheduleIndexTable#EARLY_MARK_SORT_KEY}).
     */
    private static Map<String, AttributeValue> markKey(Bucket minute, MinutePart part) {
        return part == MinutePart.MAIN ? sealKey(minute)
                : Map.of(ScheduleIndexTable.PARTITION_KEY, AttributeValue.fromS(sealPartition(minute)),
                        ScheduleIndexTable.SORT_KEY, AttributeValue.fromS(ScheduleIndexTable.EARLY_MARK_SORT_KEY));
    }

    /**
     * Refuses an index item of a newer {@link Contract#INDEX_ITEM} than this build reads: a bucket that would
     * read it wrongly must fail (and be retried by the build that wrote it) rather than delete the wrong items.
     */
    private static void checkContract(Map<String, AttributeValue> item) {
        AttributeValue contract = item.get(Contract.FIELD);
        Contract.INDEX_ITEM.check(contract == null ? null : contract.n());
    }

    private static Map<String, AttributeValue> sealKey(Bucket bucket) {
        return Map.of(ScheduleIndexTable.PARTITION_KEY, AttributeValue.fromS(sealPartition(bucket)),
                ScheduleIndexTable.SORT_KEY, AttributeValue.fromS(ScheduleIndexTable.SEAL_SORT_KEY));
    }

    /** An item key as SDK attribute values. */
    static Map<String, AttributeValue> toAttributes(ItemKey key) {
        Map<String, AttributeValue> attributes = new HashMap<>();
        key.attributes().forEach((name, value) -> attributes.put(name, switch (value.type()) {
            case S -> AttributeValue.fromS(value.text());
            case N -> AttributeValue.fromN(value.text());
            case B -> AttributeValue.fromB(SdkBytes.fromByteArray(Base64.getDecoder().decode(value.text())));
            default -> throw new IllegalArgumentException("key attribute " + name + " has type " + value.type()
                    + "; keys are S, N or B");
        }));
        return attributes;
    }

    /** An item key from SDK attribute values. */
    public static ItemKey fromAttributes(Map<String, AttributeValue> attributes) {
        Map<String, AttributeText> key = new HashMap<>();
        attributes.forEach((name, value) -> {
            if (value.s() != null) {
                key.put(name, AttributeText.s(value.s()));
            } else if (value.n() != null) {
                key.put(name, AttributeText.n(value.n()));
            } else if (value.b() != null) {
                key.put(name, AttributeText.b(Base64.getEncoder().encodeToString(value.b().asByteArray())));
            } else {
                throw new IllegalArgumentException("index entry key attribute " + name + " is not S, N or B");
            }
        });
        return ItemKey.of(key);
    }
}
