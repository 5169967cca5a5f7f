package dev.punctual.tests.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.cli.PunctualCommand;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.tests.support.ExpiryTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;
import software.amazon.awssdk.services.sfn.model.HistoryEventType;

/** Tables, items and execution read-outs the fault tests share; all against real endpoints. */
final class FaultFixtures {

    static final String KEY = "id";
    static final String TTL = "expiresAt";
    private static final ObjectMapper JSON = new ObjectMapper();

    private FaultFixtures() {
    }

    /** A table keyed by {@code id} (S), optionally with a stream and TTL on {@value #TTL}. */
    static void createTable(DynamoDbClient dynamoDb, String table, boolean streamAndTtl) {
        dynamoDb.createTable(r -> {
            r.tableName(table)
                    .keySchema(KeySchemaElement.builder().attributeName(KEY).keyType(KeyType.HASH).build())
                    .attributeDefinitions(AttributeDefinition.builder().attributeName(KEY).attributeType(ScalarAttributeType.S).build())
                    .billingMode(BillingMode.PAY_PER_REQUEST);
            if (streamAndTtl) {
                r.streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES));
            }
        });
        if (streamAndTtl) {
            enableTtl(dynamoDb, table);
        }
    }

    static void enableTtl(DynamoDbClient dynamoDb, String table) {
        dynamoDb.updateTimeToLive(r -> r.tableName(table).timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL)));
    }

    /** Writes items {@code id -> ttl} with BatchWriteItem, resending unprocessed ones; returns when all are stored. */
    static void batchWrite(DynamoDbClient dynamoDb, String table, Map<String, Long> ttls) {
        ExpiryTable.batchWrite(dynamoDb, table, ttls);
    }

    /** The ids in the table now (a full, consistent scan). */
    static Set<String> ids(DynamoDbClient dynamoDb, String table) {
        Set<String> ids = new HashSet<>();
        dynamoDb.scanPaginator(r -> r.tableName(table).consistentRead(true).projectionExpression(KEY))
                .items().forEach(item -> ids.add(item.get(KEY).s()));
        return ids;
    }

    /**
     * One closed or running execution of the expire-item machine, read over the API.
     *
     * @param itemId the {@code id} in the input's key
     * @param ttl the TTL the execution was started for
     * @param outcome {@code Expired}, {@code Superseded}, ... from the output; null while running or when failed
     * @param deletedAt the delete task's {@code TaskSucceeded}, null if it did not succeed
     * @param taskFailures {@code TaskFailed} errors, in order
     * @param startDate when the execution started
     * @param stopDate when it closed, null while running
     */
    record Observed(String name, String status, String table, String itemId, long ttl, String outcome, Instant deletedAt,
                    List<String> taskFailures, String error, String cause, Instant startDate, Instant stopDate) {
    }

    /** Every execution of {@code stateMachineArn} for {@code table}, described with its history (in parallel). */
    static List<Observed> executions(SfnClient sfn, String stateMachineArn, String table) {
        List<ExecutionListItem> listed = new ArrayList<>();
        sfn.listExecutionsPaginator(r -> r.stateMachineArn(stateMachineArn).maxResults(1000)).executions().forEach(listed::add);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Observed>> futures = new ArrayList<>();
            for (ExecutionListItem execution : listed) {
                futures.add(pool.submit(() -> observe(sfn, execution)));
            }
            List<Observed> observed = new ArrayList<>();
            for (Future<Observed> future : futures) {
                Observed one = future.get();
                if (table.equals(one.table())) {
                    observed.add(one);
                }
            }
            return observed;
        } catch (Exception e) {
            throw new IllegalStateException("reading executions failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    private static Observed observe(SfnClient sfn, ExecutionListItem execution) throws IOException {
        DescribeExecutionResponse described = sfn.describeExecution(r -> r.executionArn(execution.executionArn()));
        JsonNode input = JSON.readTree(described.input());
        String outcome = ExpiryWorkflow.outcomeOf(described.output()).orElse(null);
        Instant deletedAt = null;
        List<String> failures = new ArrayList<>();
        for (HistoryEvent event : sfn.getExecutionHistoryPaginator(r -> r.executionArn(execution.executionArn())).events()) {
            if (event.type() == HistoryEventType.TASK_SUCCEEDED && event.taskSucceededEventDetails().resource().contains("deleteItem")) {
                deletedAt = event.timestamp();
            }
            if (event.type() == HistoryEventType.TASK_FAILED) {
                failures.add(event.taskFailedEventDetails().error());
            }
        }
        return new Observed(execution.name(), described.statusAsString(), input.path(ExpiryWorkflow.TABLE).asText(),
                input.path(ExpiryWorkflow.KEY).path(KEY).path("S").asText(), Long.parseLong(input.path(ExpiryWorkflow.TTL).asText()),
                outcome, deletedAt, failures, described.error(), described.cause(), described.startDate(), described.stopDate());
    }

    /** Executions per item id that deleted the item (outcome {@code Expired}). */
    static Map<String, List<Observed>> expiredByItem(List<Observed> executions) {
        Map<String, List<Observed>> byItem = new HashMap<>();
        executions.stream().filter(e -> ExpiryWorkflow.OUTCOME_EXPIRED.equals(e.outcome()))
                .forEach(e -> byItem.computeIfAbsent(e.itemId(), id -> new ArrayList<>()).add(e));
        return byItem;
    }


    /** Output of one in-process {@code punctual} command line. */
    record CliResult(int exitCode, String out, String err) {
    }

    static CliResult punctual(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = PunctualCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliResult(code, out.toString(), err.toString());
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
