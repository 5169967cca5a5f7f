package dev.punctual.functions;

import dev.punctual.backfill.BackfillCounts;
import dev.punctual.backfill.BackfillRun;
import dev.punctual.backfill.ProgressStore;
import dev.punctual.backfill.SegmentProgress;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.Contract;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * {@link ProgressStore} on the progress table ({@link BackfillProgressTable}): GetItem and Query with
 * strongly consistent reads, PutItem and UpdateItem with conditions. A segment's position is the Scan's
 * last key stored as a map of attribute values, so it goes back to the Scan exactly as it came.
 */
public final class DynamoDbBackfillProgress implements ProgressStore {

    private static final String N_TABLE = "#table";
    private static final String N_RUN = "#run";
    private static final String N_PAGES = "#pages";

    private final DynamoDbClient dynamoDb;
    private final String progressTable;

    public DynamoDbBackfillProgress(DynamoDbClient dynamoDb, String progressTable) {
        this.dynamoDb = dynamoDb;
        this.progressTable = progressTable;
    }

    @Override
    public Optional<BackfillRun> run(String table) {
        GetItemResponse response = dynamoDb.getItem(r -> r.tableName(progressTable).consistentRead(true)
                .key(key(table, BackfillProgressTable.RUN_PART)));
        return response.hasItem() && !response.item().isEmpty() ? Optional.of(toRun(response.item())) : Optional.empty();
    }

    @Override
    public boolean begin(BackfillRun run, Optional<String> replacing) {
        Map<String, AttributeValue> item = new HashMap<>(key(run.table(), BackfillProgressTable.RUN_PART));
        item.put(Contract.FIELD, n(Contract.PROGRESS_ITEM.version()));
        item.put(BackfillProgressTable.RUN_ID, s(run.id()));
        item.put(BackfillProgressTable.SEGMENTS, n(run.segments()));
        item.put(BackfillProgressTable.TTL_ATTRIBUTE, s(run.ttlAttribute()));
        item.put(BackfillProgressTable.KEY_ATTRIBUTES, AttributeValue.fromL(run.keyAttributes().stream().map(DynamoDbBackfillProgress::s).toList()));
        item.put(BackfillProgressTable.PAGE_SIZE, n(run.pageSize()));
        item.put(BackfillProgressTable.STARTS_PER_SECOND, AttributeValue.fromN(Double.toString(run.startsPerSecond())));
        item.put(BackfillProgressTable.MODE, s(run.mode()));
        item.put(BackfillProgressTable.STARTED_AT, s(run.startedAt().toString()));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":new", s(run.id())));
        String condition = "attribute_not_exists(" + N_TABLE + ") OR " + N_RUN + " = :new";
        if (replacing.isPresent()) {
            condition += " OR " + N_RUN + " = :old";
            values.put(":old", s(replacing.get()));
        }
        String finalCondition = condition;
        try {
            dynamoDb.putItem(r -> r.tableName(progressTable).item(item).conditionExpression(finalCondition)
                    .expressionAttributeNames(Map.of(N_TABLE, BackfillProgressTable.PARTITION_KEY, N_RUN, BackfillProgressTable.RUN_ID))
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    @Override
    public void finish(String table, String runId, Instant at) {
        try {
            dynamoDb.updateItem(r -> r.tableName(progressTable).key(key(table, BackfillProgressTable.RUN_PART))
                    .updateExpression("SET #finished = if_not_exists(#finished, :at)")
                    .conditionExpression(N_RUN + " = :run")
                    .expressionAttributeNames(Map.of("#finished", BackfillProgressTable.FINISHED_AT, N_RUN, BackfillProgressTable.RUN_ID))
                    .expressionAttributeValues(Map.of(":at", s(at.toString()), ":run", s(runId))));
        } catch (ConditionalCheckFailedException e) {
            // A newer run replaced this one (a restart): it is not this run's to close.
        }
    }

    @Override
    public List<SegmentProgress> segments(String table) {
        List<SegmentProgress> segments = new ArrayList<>();
        QueryRequest request = QueryRequest.builder().tableName(progressTable).consistentRead(true)
                .keyConditionExpression(N_TABLE + " = :table AND begins_with(#part, :prefix)")
                .expressionAttributeNames(Map.of(N_TABLE, BackfillProgressTable.PARTITION_KEY, "#part", BackfillProgressTable.SORT_KEY))
                .expressionAttributeValues(Map.of(":table", s(table), ":prefix", s(BackfillProgressTable.SEGMENT_PREFIX)))
                .build();
        dynamoDb.queryPaginator(request).items().forEach(item -> segments.add(toSegment(item)));
        return segments;
    }

    @Override
    public Optional<SegmentProgress> segment(String table, int segment) {
        GetItemResponse response = dynamoDb.getItem(r -> r.tableName(progressTable).consistentRead(true)
                .key(key(table, BackfillProgressTable.segmentPart(segment))));
        return response.hasItem() && !response.item().isEmpty() ? Optional.of(toSegment(response.item())) : Optional.empty();
    }

    @Override
    public boolean save(String table, SegmentProgress next, long pagesBefore) {
        Map<String, AttributeValue> item = new HashMap<>(key(table, BackfillProgressTable.segmentPart(next.segment())));
        item.put(Contract.FIELD, n(Contract.PROGRESS_ITEM.version()));
        item.put(BackfillProgressTable.RUN_ID, s(next.runId()));
        item.put(BackfillProgressTable.DONE, AttributeValue.fromBool(next.done()));
        item.put(BackfillProgressTable.PAGES, n(next.pages()));
        next.resumeAfter().ifPresent(position -> item.put(BackfillProgressTable.POSITION,
                AttributeValue.fromM(DynamoDbScheduleIndex.toAttributes(position))));
        BackfillCounts counts = next.counts();
        item.put(BackfillWorkflow.SCANNED, n(counts.scanned()));
        item.put(BackfillWorkflow.SCHEDULED, n(counts.scheduled()));
        item.put(BackfillWorkflow.DELETED_NOW, n(counts.deletedNow()));
        item.put(BackfillWorkflow.SKIPPED, n(counts.skipped()));
        // The first page of a run overwrites whatever an earlier run left; a later one only the page it read.
        String condition = pagesBefore == 0 ? "attribute_not_exists(" + N_RUN + ") OR " + N_RUN + " <> :run"
                : N_RUN + " = :run AND " + N_PAGES + " = :before";
        Map<String, AttributeValue> values = pagesBefore == 0 ? Map.of(":run", s(next.runId()))
                : Map.of(":run", s(next.runId()), ":before", n(pagesBefore));
        Map<String, String> names = pagesBefore == 0 ? Map.of(N_RUN, BackfillProgressTable.RUN_ID)
                : Map.of(N_RUN, BackfillProgressTable.RUN_ID, N_PAGES, BackfillProgressTable.PAGES);
        try {
            dynamoDb.putItem(r -> r.tableName(progressTable).item(item).conditionExpression(condition)
                    .expressionAttributeNames(names).expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private static BackfillRun toRun(Map<String, AttributeValue> item) {
        checkContract(item);
        AttributeValue finished = item.get(BackfillProgressTable.FINISHED_AT);
        return new BackfillRun(item.get(BackfillProgressTable.RUN_ID).s(), item.get(BackfillProgressTable.PARTITION_KEY).s(),
                Integer.parseInt(item.get(BackfillProgressTable.SEGMENTS).n()), item.get(BackfillProgressTable.TTL_ATTRIBUTE).s(),
                item.get(BackfillProgressTable.KEY_ATTRIBUTES).l().stream().map(AttributeValue::s).toList(),
                Integer.parseInt(item.get(BackfillProgressTable.PAGE_SIZE).n()),
                Double.parseDouble(item.get(BackfillProgressTable.STARTS_PER_SECOND).n()), item.get(BackfillProgressTable.MODE).s(),
                Instant.parse(item.get(BackfillProgressTable.STARTED_AT).s()),
                finished == null ? null : Instant.parse(finished.s()));
    }

    private static SegmentProgress toSegment(Map<String, AttributeValue> item) {
        checkContract(item);
        String part = item.get(BackfillProgressTable.SORT_KEY).s();
        AttributeValue position = item.get(BackfillProgressTable.POSITION);
        return new SegmentProgress(item.get(BackfillProgressTable.RUN_ID).s(),
                Integer.parseInt(part.substring(BackfillProgressTable.SEGMENT_PREFIX.length())),
                position == null ? null : DynamoDbScheduleIndex.fromAttributes(position.m()),
                item.get(BackfillProgressTable.DONE).bool(), Long.parseLong(item.get(BackfillProgressTable.PAGES).n()),
                new BackfillCounts(count(item, BackfillWorkflow.SCANNED),
                        count(item, BackfillWorkflow.SCHEDULED),
                        count(item, BackfillWorkflow.DELETED_NOW),
                        count(item, BackfillWorkflow.SKIPPED)));
    }

    /** Refuses a progress item of a newer {@link Contract#PROGRESS_ITEM} than this build reads. */
    private static void checkContract(Map<String, AttributeValue> item) {
        AttributeValue contract = item.get(Contract.FIELD);
        Contract.PROGRESS_ITEM.check(contract == null ? null : contract.n());
    }

    private static long count(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null ? 0 : Long.parseLong(value.n());
    }

    private static Map<String, AttributeValue> key(String table, String part) {
        return Map.of(BackfillProgressTable.PARTITION_KEY, s(table), BackfillProgressTable.SORT_KEY, s(part));
    }

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
