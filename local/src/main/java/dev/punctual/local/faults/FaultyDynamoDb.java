package dev.punctual.local.faults;

import java.util.Objects;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The DynamoDB client one caller of the local runtime gets (the stream handler, the bucket function,
 * the backfill function, the state machines' DynamoDB tasks): before each call it asks its {@link Faults}
 * whether the call fails, and if so throws what DynamoDB would have answered, an SDK exception with DynamoDB's error
 * code, message, HTTP status and request ID {@code injected-fault}, without calling on. The fault
 * reaches the caller as it would once the SDK's own retries were spent. The call site is the caller's
 * name and the operation ({@code handler.PutItem}). It decorates whatever client it is given (the
 * runtime gives it the metered one, so an injected fault is not billed), and offers the operations
 * Punctual and the state machines' DynamoDB tasks use.
 */
public final class FaultyDynamoDb implements DynamoDbClient {

    private final DynamoDbClient delegate;
    private final Faults faults;
    private final String caller;

    /**
     * @param caller names the call sites: {@code handler}, {@code bucket-function}, {@code backfill-function},
     *     {@code state-machine}
     */
    public FaultyDynamoDb(DynamoDbClient delegate, Faults faults, String caller) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.faults = Objects.requireNonNull(faults, "faults");
        this.caller = Objects.requireNonNull(caller, "caller");
    }

    @Override
    public DeleteItemResponse deleteItem(DeleteItemRequest request) {
        inject("DeleteItem");
        return delegate.deleteItem(request);
    }

    @Override
    public PutItemResponse putItem(PutItemRequest request) {
        inject("PutItem");
        return delegate.putItem(request);
    }

    @Override
    public UpdateItemResponse updateItem(UpdateItemRequest request) {
        inject("UpdateItem");
        return delegate.updateItem(request);
    }

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
        inject("GetItem");
        return delegate.getItem(request);
    }

    @Override
    public QueryResponse query(QueryRequest request) {
        inject("Query");
        return delegate.query(request);
    }

    @Override
    public ScanResponse scan(ScanRequest request) {
        inject("Scan");
        return delegate.scan(request);
    }

    @Override
    public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
        inject("BatchWriteItem");
        return delegate.batchWriteItem(request);
    }

    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
        inject("DescribeTable");
        return delegate.describeTable(request);
    }

    @Override
    public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
        inject("DescribeTimeToLive");
        return delegate.describeTimeToLive(request);
    }

    private void inject(String operation) {
        faults.next(caller + "." + operation).ifPresent(code -> {
            throw exception(code);
        });
    }

    /** The exception the SDK raises for DynamoDB answering {@code code}. */
    static DynamoDbException exception(String code) {
        String message = switch (code) {
            case "ProvisionedThroughputExceededException" -> "The level of configured provisioned throughput for the"
                    + " table was exceeded. Consider increasing your provisioning level with the UpdateTable API.";
            case "ThrottlingException", "RequestLimitExceeded" -> "Rate of requests exceeds the allowed throughput.";
            case "AccessDeniedException" -> "The caller's role is not authorized to perform this DynamoDB action.";
            default -> "Internal server error";
        };
        int status = switch (code) {
            case "InternalServerError" -> 500;
            case "ServiceUnavailable" -> 503;
            default -> 400;
        };
        DynamoDbException.Builder builder = switch (code) {
            case "ProvisionedThroughputExceededException" -> ProvisionedThroughputExceededException.builder();
            case "RequestLimitExceeded" -> RequestLimitExceededException.builder();
            case "InternalServerError" -> InternalServerErrorException.builder();
            // the SDK's DynamoDB model has had a ThrottlingException class since 2025; older ones raise the base
            case "ThrottlingException" -> ThrottlingException.builder();
            default -> DynamoDbException.builder();
        };
        return (DynamoDbException) builder
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).serviceName("DynamoDb").build())
                .statusCode(status)
                .requestId("injected-fault")
                .build();
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
