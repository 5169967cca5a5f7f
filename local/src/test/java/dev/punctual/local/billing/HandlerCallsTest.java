package dev.punctual.local.billing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullResponse;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/** The handler's calls, counted by kind: what {@code bulk-import} divides by the batches. */
class HandlerCallsTest {

    private final HandlerCalls calls = new HandlerCalls("index"::equals);

    @Test
    void dynamoDbCalls_areCountedByOperationTableAndWhetherAReadIsProjected() {
        DynamoDbClient counted = calls.counting(new DynamoDbClient() {
            @Override
            public GetItemResponse getItem(GetItemRequest request) {
                return GetItemResponse.builder().build();
            }

            @Override
            public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
                return BatchWriteItemResponse.builder().build();
            }

            @Override
            public DeleteItemResponse deleteItem(DeleteItemRequest request) {
                return DeleteItemResponse.builder().build();
            }

            @Override
            public String serviceName() {
                return "dynamodb";
            }

            @Override
            public void close() {
            }
        });
        Map<String, Long> before = calls.snapshot();

        counted.getItem(r -> r.tableName("index").consistentRead(true));
        counted.getItem(r -> r.tableName("index").projectionExpression("#t, #n"));
        counted.getItem(r -> r.tableName("index").projectionExpression("#t, #n"));
        WriteRequest put = WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of("b", AttributeValue.fromS("x"))).build()).build();
        counted.batchWriteItem(r -> r.requestItems(Map.of("index", List.of(put, put))));
        counted.deleteItem(r -> r.tableName("orders"));

        assertThat(HandlerCalls.between(before, calls.snapshot())).containsExactlyInAnyOrderEntriesOf(Map.of(
                "index GetItem", 1L,
                "index GetItem (mark)", 2L,
                "index BatchWriteItem", 1L,
                "item DeleteItem", 1L));
    }

    @Test
    void stepFunctionsRequests_areCountedByTheirTargetOperation() throws Exception {
        SdkHttpClient counted = calls.counting(new SdkHttpClient() {
            @Override
            public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
                return new ExecutableHttpRequest() {
                    @Override
                    public HttpExecuteResponse call() {
                        return HttpExecuteResponse.builder().response(SdkHttpFullResponse.builder().statusCode(200).build()).build();
                    }

                    @Override
                    public void abort() {
                    }
                };
            }

            @Override
            public void close() {
            }
        });

        for (String target : List.of("AWSStepFunctions.StartExecution", "AWSStepFunctions.StartExecution",
                "AWSStepFunctions.DescribeExecution")) {
            SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.POST).protocol("http").host("localhost")
                    .putHeader("X-Amz-Target", target).build();
            assertThat(counted.prepareRequest(HttpExecuteRequest.builder().request(request).build()).call()
                    .httpResponse().statusCode()).isEqualTo(200);
        }

        assertThat(calls.snapshot()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "sfn StartExecution", 2L, "sfn DescribeExecution", 1L));
    }
}
