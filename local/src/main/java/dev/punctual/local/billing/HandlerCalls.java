package dev.punctual.local.billing;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
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
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The stream handler's calls to DynamoDB and Step Functions, counted by kind, so that a bench can say
 * what one stream batch costs in calls ({@code bulk-import} divides them by the handler's invocations).
 * A kind names the operation and what it touched: {@code index PutItem} (an index chunk),
 * {@code index GetItem (mark)} (a minute runner's mark: a projected read), {@code index GetItem} (a
 * coarse bucket's seal), {@code item DeleteItem} (an item deleted by the handler at its TTL),
 * {@code sfn StartExecution}, {@code sfn DescribeExecution}. Counting is by the request's shape only,
 * so the same counter serves every build of the handler.
 */
public final class HandlerCalls {

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final Predicate<String> isIndexTable;

    /** @param isIndexTable whether a table name is Punctual's schedule index (every other is a user's) */
    public HandlerCalls(Predicate<String> isIndexTable) {
        this.isIndexTable = isIndexTable;
    }

    /** The counts so far, by kind, in the kinds' order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> snapshot = new TreeMap<>();
        counts.forEach((kind, count) -> snapshot.put(kind, count.sum()));
        return snapshot;
    }

    /** What happened between {@code earlier} and {@code later}, by kind. */
    public static Map<String, Long> between(Map<String, Long> earlier, Map<String, Long> later) {
        Map<String, Long> difference = new TreeMap<>();
        later.forEach((kind, count) -> difference.put(kind, count - earlier.getOrDefault(kind, 0L)));
        return difference;
    }

    private void count(String kind) {
        counts.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    private String table(String name) {
        return isIndexTable.test(name) ? "index" : "item";
    }

    /** {@code delegate}, counting each call here. */
    public DynamoDbClient counting(DynamoDbClient delegate) {
        return new CountingDynamoDb(delegate);
    }

    /** {@code delegate}, counting each Step Functions request by its {@code X-Amz-Target} operation. */
    public SdkHttpClient counting(SdkHttpClient delegate) {
        return new SdkHttpClient() {
            @Override
            public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
                String target = request.httpRequest().firstMatchingHeader("X-Amz-Target").orElse("?");
                count("sfn " + target.substring(target.indexOf('.') + 1));
                ExecutableHttpRequest prepared = delegate.prepareRequest(request);
                return new ExecutableHttpRequest() {
                    @Override
                    public HttpExecuteResponse call() throws IOException {
                        return prepared.call();
                    }

                    @Override
                    public void abort() {
                        prepared.abort();
                    }
                };
            }

            @Override
            public String clientName() {
                return delegate.clientName();
            }

            @Override
            public void close() {
                delegate.close();
            }
        };
    }

    private final class CountingDynamoDb implements DynamoDbClient {
        private final DynamoDbClient delegate;

        CountingDynamoDb(DynamoDbClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public PutItemResponse putItem(PutItemRequest request) {
            count(table(request.tableName()) + " PutItem");
            return delegate.putItem(request);
        }

        @Override
        public GetItemResponse getItem(GetItemRequest request) {
            count(table(request.tableName()) + " GetItem" + (request.projectionExpression() == null ? "" : " (mark)"));
            return delegate.getItem(request);
        }

        @Override
        public UpdateItemResponse updateItem(UpdateItemRequest request) {
            count(table(request.tableName()) + " UpdateItem");
            return delegate.updateItem(request);
        }

        @Override
        public DeleteItemResponse deleteItem(DeleteItemRequest request) {
            count(table(request.tableName()) + " DeleteItem");
            return delegate.deleteItem(request);
        }

        @Override
        public QueryResponse query(QueryRequest request) {
            count(table(request.tableName()) + " Query");
            return delegate.query(request);
        }

        @Override
        public ScanResponse scan(ScanRequest request) {
            count(table(request.tableName()) + " Scan");
            return delegate.scan(request);
        }

        @Override
        public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
            request.requestItems().keySet().forEach(table -> count(table(table) + " BatchWriteItem"));
            return delegate.batchWriteItem(request);
        }

        @Override
        public DescribeTableResponse describeTable(DescribeTableRequest request) {
            return delegate.describeTable(request);
        }

        @Override
        public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
            return delegate.describeTimeToLive(request);
        }

        @Override
        public String serviceName() {
            return delegate.serviceName();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
