package dev.punctual.local.modes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.functions.DynamoDbScheduleIndex;
import dev.punctual.names.BucketExecutionName;
import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.ScheduleIndexTable;
import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Windowed mode's pending items, for {@code punctual pending} and the console: the schedule index's entries whose
 * second has not been sealed yet (by its minute runner's mark, or by a one-second fallback's seal), each with
 * the finest running bucket execution that will reach it. Entries a changed item left behind (its TTL moved or removed, the item deleted)
 * are checked against the item, shown first ones only, and left out.
 */
public final class IndexedPending {

    /** What an item shows for its bucket while none of the buckets holding it is running yet. */
    public static final String NO_RUNNING_BUCKET = "(no running bucket)";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One pending item. */
    public record Item(String table, Map<String, AttributeValue> key, String ttl, Instant expireAt, String bucket) {
    }

    private final DynamoDbClient dynamoDb;
    private final String indexTable;
    /** Names of the running bucket executions. */
    private final Set<String> running = new HashSet<>();
    /** TTL attribute names by table, from one running bucket execution's input per table. */
    private final Map<String, String> ttlAttributes = new HashMap<>();
    /** Running early parts of minutes: the part's execution name, and the second the part stops before. */
    private final Map<BucketExecutionName, Long> earlyParts = new HashMap<>();

    /** Reads the running bucket executions once; {@link #items} and {@link #current} use what it found. */
    public IndexedPending(SfnClient sfn, DynamoDbClient dynamoDb, String bucketStateMachineArn, String indexTable) {
        this.dynamoDb = dynamoDb;
        this.indexTable = indexTable;
        Set<String> tablesSeen = new HashSet<>();
        for (ExecutionListItem execution : sfn.listExecutionsPaginator(r -> r.stateMachineArn(bucketStateMachineArn)
                .statusFilter(ExecutionStatus.RUNNING)).executions()) {
            running.add(execution.name());
            // Every bucket of a table carries the same TTL attribute: describe one execution per table (the
            // part of the name that stands for it), and any execution whose name does not say its table.
            Optional<BucketExecutionName> name = BucketExecutionName.parse(execution.name());
            boolean early = name.map(BucketExecutionName::early).orElse(false);
            if (name.isEmpty() || early || tablesSeen.add(name.get().bucket().tablePart())) {
                JsonNode input = input(sfn.describeExecution(r -> r.executionArn(execution.executionArn())).input());
                ttlAttributes.put(input.path(BucketWorkflow.TABLE).asText(), input.path(BucketWorkflow.TTL_ATTRIBUTE).asText());
                if (early && input.path(BucketWorkflow.UNTIL).isNumber()) {
                    // A minute's early part holds the seconds before its main part's first.
                    earlyParts.put(name.get(), input.path(BucketWorkflow.UNTIL).asLong());
                }
            }
        }
    }

    /** Pending items of {@code table} (or every table for {@code null}), sorted by expiry. */
    public List<Item> items(String table) {
        Set<String> sealedSeconds = new HashSet<>();
        Map<String, Long> minuteMarks = new HashMap<>();
        Map<String, Item> items = new LinkedHashMap<>();
        dynamoDb.scanPaginator(r -> r.tableName(indexTable).consistentRead(true)).items().forEach(row -> {
            String partition = row.get(ScheduleIndexTable.PARTITION_KEY).s();
            Optional<Bucket> seal = DynamoDbScheduleIndex.sealedBucket(partition);
            if (seal.isPresent()) {
                if (seal.get().level() == BucketLevel.SECOND) {
                    sealedSeconds.add(seal.get().table() + "|" + seal.get().start());
                } else if (seal.get().level() == BucketLevel.MINUTE && row.containsKey(ScheduleIndexTable.THROUGH)) {
                    // The main part's mark, and the early part's beside it: the further one says what is past.
                    minuteMarks.merge(seal.get().table() + "|" + seal.get().start(), Long.parseLong(row.get(ScheduleIndexTable.THROUGH).n()),
                            Math::max);
                }
                return;
            }
            String entryTable = DynamoDbScheduleIndex.entryTable(partition);
            if (table != null && !table.equals(entryTable)) {
                return;
            }
            long second = DynamoDbScheduleIndex.entrySecond(row.get(ScheduleIndexTable.SORT_KEY).s());
            for (AttributeValue entry : row.get(ScheduleIndexTable.ENTRIES).l()) {
                Map<String, AttributeValue> key = entry.m().get(ScheduleIndexTable.ENTRY_KEY).m();
                String ttl = entry.m().get(ScheduleIndexTable.ENTRY_TTL).s();
                items.putIfAbsent(entryTable + "|" + key + "|" + ttl, new Item(entryTable, key, ttl, Instant.ofEpochSecond(second),
                        bucket(entryTable, second)));
            }
        });
        List<Item> pending = new ArrayList<>();
        for (Item item : items.values()) {
            long second = item.expireAt().getEpochSecond();
            long through = minuteMarks.getOrDefault(item.table() + "|" + BucketLevel.MINUTE.startOf(second), Long.MIN_VALUE);
            if (!sealedSeconds.contains(item.table() + "|" + second) && second > through) {
                pending.add(item);
            }
        }
        pending.sort(Comparator.comparing(Item::expireAt));
        return pending;
    }

    /** Whether the item still holds the TTL it was indexed with (a consistent read of its TTL only). */
    public boolean current(Item item) {
        String attribute = ttlAttributes.get(item.table());
        if (attribute == null) {
            return true;
        }
        var response = dynamoDb.getItem(r -> r.tableName(item.table()).key(item.key()).consistentRead(true)
                .projectionExpression("#ttl").expressionAttributeNames(Map.of("#ttl", attribute)));
        AttributeValue ttl = response.hasItem() ? response.item().get(attribute) : null;
        return ttl != null && item.ttl().equals(ttl.n());
    }

    /** The finest running bucket execution whose bucket holds {@code second}: a minute's early part before its main one. */
    private String bucket(String table, long second) {
        BucketExecutionName.Base minute = Bucket.containing(table, BucketLevel.MINUTE, second).baseName();
        for (Map.Entry<BucketExecutionName, Long> early : earlyParts.entrySet()) {
            if (early.getKey().bucket().equals(minute) && second < early.getValue()) {
                return early.getKey().toString();
            }
        }
        for (BucketLevel level : BucketLevel.values()) {
            String name = Bucket.containing(table, level, second).executionName();
            if (running.contains(name)) {
                return name;
            }
        }
        return NO_RUNNING_BUCKET;
    }

    /** A key as DynamoDB JSON, as per-item mode's inputs show it. */
    public static String keyJson(Map<String, AttributeValue> key) {
        return DynamoDbScheduleIndex.fromAttributes(key).toDynamoJson();
    }

    private static JsonNode input(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }
}
