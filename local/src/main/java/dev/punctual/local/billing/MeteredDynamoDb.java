package dev.punctual.local.billing;

import dev.punctual.functions.DynamoDbItemDeleter;
import java.time.Clock;
import java.util.function.Predicate;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The DynamoDB client Punctual's own code gets on the local runtime: it asks DynamoDB Local for the
 * consumed capacity of every call but an item's own delete and adds it to a {@link CostMeter}, and it tells a
 * {@link DeletionLedger} when a conditional delete of an item succeeded, with the time it returned.
 * Deletes on a table {@code isUserTable} accepts are the items' own deletes; every other call is
 * Punctual's. Only the operations Punctual and the state machine's DynamoDB tasks use are offered.
 */
public final class MeteredDynamoDb implements DynamoDbClient {

    /**
     * Write units counted for deleting one item: DynamoDB bills one per KB of the deleted item, so
     * this is the price of an item of up to 1 KB, as the trials' items are. Larger items cost more to
     * delete in AWS whatever deletes them, which is why the report keeps item deletes apart.
     */
    static final double ITEM_DELETE_UNITS = 1;

    private final DynamoDbClient delegate;
    private final CostMeter meter;
    private final DeletionLedger ledger;
    private final Predicate<String> isUserTable;
    private final Clock clock;

    public MeteredDynamoDb(DynamoDbClient delegate, CostMeter meter, DeletionLedger ledger, Predicate<String> isUserTable,
            Clock clock) {
        this.delegate = delegate;
        this.meter = meter;
        this.ledger = ledger;
        this.isUserTable = isUserTable;
        this.clock = clock;
    }

    /**
     * An item's own delete is counted as {@link #ITEM_DELETE_UNITS}, without asking DynamoDB Local: the
     * consumed capacity costs it a read of the table's metadata, parsed on its single database thread,
     * for every delete, the very thread a second's deletes queue for ({@code DeleteContentionBenchmark},
     * variant {@code capacity}). Deletes on Punctual's own tables ask, as every other call does.
     */
    @Override
    public DeleteItemResponse deleteItem(DeleteItemRequest request) {
        boolean itemDelete = isUserTable.test(request.tableName());
        DeleteItemResponse response;
        try {
            response = delegate.deleteItem(itemDelete ? request
                    : request.toBuilder().returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build());
        } catch (ConditionalCheckFailedException e) {
            // DynamoDB bills a failed condition as a write; the delete found a changed or missing item.
            meter.punctualUnits(1, 0);
            if (itemDelete) {
                ledger.superseded(request.tableName(), request.key(), comparedTtl(request), clock.instant());
            }
            throw e;
        }
        if (itemDelete) {
            meter.itemDelete(ITEM_DELETE_UNITS);
            ledger.deleted(request.tableName(), request.key(), comparedTtl(request), clock.instant());
        } else {
            meter.punctualUnits(units(response.consumedCapacity(), 1, true), 0);
        }
        return response;
    }

    /** The TTL text a Punctual delete compares, or {@code null} for any other delete. */
    private static String comparedTtl(DeleteItemRequest request) {
        return DynamoDbItemDeleter.comparedTtl(request).orElse(null);
    }

    @Override
    public PutItemResponse putItem(PutItemRequest request) {
        PutItemResponse response = delegate.putItem(request.toBuilder().returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build());
        return written(response, response.consumedCapacity());
    }

    @Override
    public UpdateItemResponse updateItem(UpdateItemRequest request) {
        UpdateItemResponse response = delegate.updateItem(request.toBuilder().returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build());
        return written(response, response.consumedCapacity());
    }

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
        GetItemResponse response = delegate.getItem(request.toBuilder().returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build());
        return read(response, response.consumedCapacity(), request.consistentRead());
    }

    @Override
    public QueryResponse query(QueryRequest request) {
        QueryResponse response = delegate.query(request.toBuilder().returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build());
        return read(response, response.consumedCapacity(), request.consistentRead());
    }

    @Override
    public ScanResponse scan(ScanRequest request) {
        ScanResponse response = delegate.scan(request.toBuilder().returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build());
        return read(response, response.consumedCapacity(), request.consistentRead());
    }

    @Override
    public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
        BatchWriteItemResponse response = delegate.batchWriteItem(request.toBuilder()
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build());
        response.consumedCapacity().forEach(capacity -> written(response, capacity));
        return response;
    }

    /** A control-plane read (backfill reads a table's key schema): not billed per request. */
    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
        return delegate.describeTable(request);
    }

    /** A control-plane read (backfill reads a table's TTL attribute): not billed per request. */
    @Override
    public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
        return delegate.describeTimeToLive(request);
    }

    private <R> R written(R response, ConsumedCapacity capacity) {
        meter.punctualUnits(units(capacity, 1, true), 0);
        return response;
    }

    /**
     * A read's units: DynamoDB bills a read request at least one unit when strongly consistent, half when
     * not, even when it finds nothing (developer guide, "Read consumption"), which DynamoDB Local reports
     * as none for a query or a get that finds nothing.
     */
    private <R> R read(R response, ConsumedCapacity capacity, Boolean consistent) {
        double minimum = Boolean.TRUE.equals(consistent) ? 1 : 0.5;
        meter.punctualUnits(0, Math.max(minimum, units(capacity, minimum, false)));
        return response;
    }

    /**
     * The units a response reports; {@code fallback} when DynamoDB Local reports none (a write or
     * read of an item up to 1 KB / 4 KB costs one unit).
     */
    private static double units(ConsumedCapacity capacity, double fallback, boolean write) {
        if (capacity == null) {
            return fallback;
        }
        Double units = write ? capacity.writeCapacityUnits() : capacity.readCapacityUnits();
        if (units == null) {
            units = capacity.capacityUnits();
        }
        return units == null ? fallback : units;
    }

    @Override
    public String serviceName() {
        return delegate.serviceName();
    }

    @Override
    public void close() {
        // The delegate belongs to the runtime.
    }
}
