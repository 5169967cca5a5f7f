package dev.punctual.local.stepfunctions.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.errors.AslError;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.errors.TaskError;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.utils.builder.SdkBuilder;

/**
 * DynamoDB Task resources against one {@link DynamoDbClient}:
 * <ul>
 *   <li>the optimized integration {@code arn:<partition>:states:::dynamodb:getItem|putItem|updateItem|deleteItem},
 *       whose results carry {@code SdkHttpMetadata}/{@code SdkResponseMetadata};</li>
 *   <li>the AWS SDK integration {@code arn:<partition>:states:::aws-sdk:dynamodb:<action>} for query, scan,
 *       batchWriteItem, getItem, putItem, deleteItem and updateItem.</li>
 * </ul>
 * Errors are named as AWS's recorded executions show (LocalStack's parity snapshots, replayed by
 * {@code AwsRecordingsTest}): an error the SDK's DynamoDB model has an exception class for keeps that class's
 * name ({@code DynamoDB.ResourceNotFoundException}, {@code DynamoDb.ResourceNotFoundException}); any other,
 * a {@code ValidationException} among them, takes the service's base exception's name:
 * {@code DynamoDB.AmazonDynamoDBException} in the optimized integration (AWS's SDK v1 name), and
 * {@code DynamoDb.DynamoDbException} in the AWS SDK one.
 * Parameters map onto SDK requests through the SDK's own field metadata ({@link SdkJson}).
 */
public final class DynamoDbTaskResource implements TaskResource {

    private static final Pattern OPTIMIZED = Pattern.compile(
            "arn:aws[a-z-]*:states:::dynamodb:(getItem|putItem|updateItem|deleteItem)");
    private static final Pattern SDK = Pattern.compile(
            "arn:aws[a-z-]*:states:::aws-sdk:dynamodb:(query|scan|batchWriteItem|getItem|putItem|deleteItem|updateItem)");

    private record Operation(Supplier<SdkPojo> builder, Function<Object, DynamoDbResponse> call) {
    }

    private final DynamoDbClient client;
    private final Map<String, Operation> operations;

    /**
     * @param client the client for the runtime's DynamoDB endpoint (the runtime's injects faults,
     *     {@code dev.punctual.local.faults.FaultyDynamoDb}, which fail the task as DynamoDB's errors would)
     */
    public DynamoDbTaskResource(DynamoDbClient client) {
        this.client = Objects.requireNonNull(client, "client");
        this.operations = Map.of(
                "getItem", new Operation(() -> (SdkPojo) GetItemRequest.builder(), r -> client.getItem((GetItemRequest) r)),
                "putItem", new Operation(() -> (SdkPojo) PutItemRequest.builder(), r -> client.putItem((PutItemRequest) r)),
                "updateItem", new Operation(() -> (SdkPojo) UpdateItemRequest.builder(),
                        r -> client.updateItem((UpdateItemRequest) r)),
                "deleteItem", new Operation(() -> (SdkPojo) DeleteItemRequest.builder(),
                        r -> client.deleteItem((DeleteItemRequest) r)),
                "query", new Operation(() -> (SdkPojo) QueryRequest.builder(), r -> client.query((QueryRequest) r)),
                "scan", new Operation(() -> (SdkPojo) ScanRequest.builder(), r -> client.scan((ScanRequest) r)),
                "batchWriteItem", new Operation(() -> (SdkPojo) BatchWriteItemRequest.builder(),
                        r -> client.batchWriteItem((BatchWriteItemRequest) r)));
    }

    @Override
    public boolean supports(String resourceArn) {
        return OPTIMIZED.matcher(resourceArn).matches() || SDK.matcher(resourceArn).matches();
    }

    /** Calls DynamoDB on the caller's thread (the interpreter's task executor). */
    @Override
    public CompletionStage<JsonNode> invoke(String resourceArn, JsonNode parameters, ContextObject context) {
        Matcher optimized = OPTIMIZED.matcher(resourceArn);
        boolean isOptimized = optimized.matches();
        Matcher sdk = SDK.matcher(resourceArn);
        if (!isOptimized && !sdk.matches()) {
            throw new IllegalArgumentException("Unsupported DynamoDB resource " + resourceArn);
        }
        String action = isOptimized ? optimized.group(1) : sdk.group(1);
        String errorPrefix = isOptimized ? "DynamoDB." : "DynamoDb.";
        try {
            return CompletableFuture.completedFuture(call(action, parameters, isOptimized, errorPrefix));
        } catch (AslError e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode call(String action, JsonNode parameters, boolean optimized, String errorPrefix) {
        Operation operation = operations.get(action);
        Object request;
        try {
            SdkPojo builder = operation.builder().get();
            SdkJson.fill(builder, parameters, "");
            request = ((SdkBuilder<?, ?>) builder).build();
        } catch (IllegalArgumentException e) {
            throw new StatesRuntimeError("Invalid parameters for DynamoDB " + action + ": "
                    + e.getMessage());
        }
        DynamoDbResponse response;
        try {
            response = operation.call().apply(request);
        } catch (DynamoDbException e) {
            String code = e.awsErrorDetails() == null ? "DynamoDbException" : e.awsErrorDetails().errorCode();
            throw new TaskError(errorPrefix + errorName(e, optimized), cause(e, code, optimized));
        } catch (SdkClientException e) {
            throw new TaskError(errorPrefix + "SdkClientException", e.getMessage());
        }
        ObjectNode result = SdkJson.toJson(response);
        if (optimized) {
            ObjectNode http = result.putObject("SdkHttpMetadata");
            ObjectNode headers = http.putObject("HttpHeaders");
            int status = 200;
            if (response.sdkHttpResponse() != null) {
                response.sdkHttpResponse().headers().forEach((name, values) -> headers.put(name, String.join(",", values)));
                status = response.sdkHttpResponse().statusCode();
            }
            http.put("HttpStatusCode", status);
            result.putObject("SdkResponseMetadata").put("RequestId",
                    response.responseMetadata() == null ? null : response.responseMetadata().requestId());
        }
        return result;
    }

    /** The modelled exception's class name, or the base exception's name for an error the model lacks. */
    static String errorName(DynamoDbException e, boolean optimized) {
        if (e.getClass() != DynamoDbException.class) {
            return e.getClass().getSimpleName();
        }
        return optimized ? "AmazonDynamoDBException" : "DynamoDbException";
    }

    private static String cause(DynamoDbException e, String code, boolean optimized) {
        if (!optimized) {
            return e.getMessage();
        }
        String message = e.awsErrorDetails() == null ? e.getMessage() : e.awsErrorDetails().errorMessage();
        return message + " (Service: AmazonDynamoDBv2; Status Code: " + e.statusCode() + "; Error Code: " + code
                + "; Request ID: " + e.requestId() + "; Proxy: null)";
    }
}
