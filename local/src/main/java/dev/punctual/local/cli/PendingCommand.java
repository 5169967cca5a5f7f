package dev.punctual.local.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.modes.IndexedPending;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.statemachine.ScheduleIndexTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.StateMachineDoesNotExistException;

/**
 * Lists pending expirations sorted by expiry: running executions of the expire-item state machine
 * and, where windowed mode's expire-bucket state machine exists, the items its schedule index holds
 * for buckets not yet worked. The local twin of the Step Functions console.
 */
@Command(name = "pending", mixinStandardHelpOptions = true,
        description = "Show pending expirations (running executions) sorted by expiry.")
final class PendingCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Option(names = "--sfn-endpoint", description = "Step Functions endpoint (default: ${DEFAULT-VALUE}).",
            defaultValue = "http://127.0.0.1:8083")
    URI endpoint;

    @Option(names = "--state-machine-arn", description = "State machine ARN (default: the local runtime's).")
    String stateMachineArn = LocalDefaults.stateMachineArn();

    @Option(names = "--dynamodb-endpoint", description = "DynamoDB endpoint, for windowed mode's schedule index"
            + " (default: ${DEFAULT-VALUE}).", defaultValue = "http://127.0.0.1:8000")
    URI dynamoDbEndpoint;

    @Option(names = "--bucket-state-machine-arn", description = "Windowed mode's expire-bucket state machine ARN"
            + " (default: the local runtime's); its pending items are listed when it exists.")
    String bucketStateMachineArn = LocalDefaults.bucketStateMachineArn();

    @Option(names = "--index-table", description = "Windowed mode's schedule index table (default: ${DEFAULT-VALUE}).",
            defaultValue = ScheduleIndexTable.LOCAL_TABLE_NAME)
    String indexTable;

    @Option(names = "--console", paramLabel = "URL", description = "Read the local console's JSON API at URL"
            + " (e.g. http://127.0.0.1:8084/) instead of the Step Functions API: the same list its /pending page shows.")
    URI console;

    @Option(names = "--table", description = "Only expirations of this table.")
    String table;

    @Option(names = "--limit", description = "Show at most this many (default: ${DEFAULT-VALUE}).", defaultValue = "50")
    int limit;

    @Option(names = "--status", description = "Execution status to list: RUNNING (pending), FAILED, TIMED_OUT, ABORTED, SUCCEEDED (default: ${DEFAULT-VALUE}).",
            defaultValue = "RUNNING")
    ExecutionStatus status;

    private final Clock clock;
    /** With {@code --console}: how many the console counts, of which the rows are the first. */
    private int consoleTotal = -1;

    PendingCommand() {
        this(Clock.systemUTC());
    }

    PendingCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Integer call() {
        if (limit < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (console != null) {
            if (status != ExecutionStatus.RUNNING) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--console lists pending (RUNNING)"
                        + " expirations only; use the Step Functions API for --status " + status);
            }
            print(out, consoleRows());
            return 0;
        }
        try (SfnClient sfn = LocalClients.stepFunctions(endpoint)) {
            List<Row> rows = new ArrayList<>();
            for (ExecutionListItem execution : sfn.listExecutionsPaginator(r -> r.stateMachineArn(stateMachineArn).statusFilter(status))
                    .executions()) {
                Row row = describe(sfn, execution);
                if (row != null && (table == null || table.equals(row.table()))) {
                    rows.add(row);
                }
            }
            if (status == ExecutionStatus.RUNNING && exists(sfn, bucketStateMachineArn)) {
                try (DynamoDbClient dynamoDb = LocalClients.dynamoDb(dynamoDbEndpoint)) {
                    rows.addAll(indexedRows(sfn, dynamoDb));
                }
            }
            rows.sort(Comparator.comparing(Row::expireAt, Comparator.nullsLast(Comparator.naturalOrder())));
            print(out, rows);
        }
        return 0;
    }

    /** The first page of the console's {@code /api/pending}, as rows; the total is the console's count. */
    private List<Row> consoleRows() {
        String query = "limit=" + Math.min(limit, 500) + (table == null ? ""
                : "&table=" + URLEncoder.encode(table, StandardCharsets.UTF_8));
        URI uri = console.resolve("/api/pending?" + query);
        JsonNode body;
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
            body = JSON.readTree(response.body());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("The console at " + console + " answered " + response.statusCode() + ": "
                        + body.path("error").asText(response.body()));
            }
        } catch (IOException e) {
            throw new IllegalStateException("Could not read the console at " + uri + " (is `punctual local` running?): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading " + uri, e);
        }
        List<Row> rows = new ArrayList<>();
        for (JsonNode item : body.path("items")) {
            rows.add(new Row(item.has("bucket") ? item.path("bucket").asText() : item.path("execution").asText(),
                    item.path("table").asText(), item.path("key").asText(), item.path("ttl").asText(),
                    Instant.ofEpochMilli(item.path("expireAt").asLong()), null));
        }
        consoleTotal = body.path("total").asInt(rows.size());
        return rows;
    }

    /**
     * Windowed mode's pending items, sorted; the first {@code limit} are checked against their items
     * and stale entries (TTL changed, item gone) dropped, the rest counted as they are indexed.
     */
    private List<Row> indexedRows(SfnClient sfn, DynamoDbClient dynamoDb) {
        IndexedPending index = new IndexedPending(sfn, dynamoDb, bucketStateMachineArn, indexTable);
        List<Row> rows = new ArrayList<>();
        int checked = 0;
        for (IndexedPending.Item item : index.items(table)) {
            if (checked < limit) {
                checked++;
                if (!index.current(item)) {
                    continue;
                }
            }
            rows.add(new Row(item.bucket(), item.table(), IndexedPending.keyJson(item.key()), item.ttl(), item.expireAt(), null));
        }
        return rows;
    }

    private static boolean exists(SfnClient sfn, String stateMachineArn) {
        try {
            sfn.describeStateMachine(r -> r.stateMachineArn(stateMachineArn));
            return true;
        } catch (StateMachineDoesNotExistException e) {
            return false;
        }
    }

    private Row describe(SfnClient sfn, ExecutionListItem execution) {
        var described = sfn.describeExecution(r -> r.executionArn(execution.executionArn()));
        JsonNode input;
        try {
            input = JSON.readTree(described.input());
        } catch (IOException e) {
            return new Row(execution.name(), null, null, null, null, described.error());
        }
        Instant expireAt = input.hasNonNull(ExpiryWorkflow.EXPIRE_AT) ? Instant.parse(input.get(ExpiryWorkflow.EXPIRE_AT).asText()) : null;
        return new Row(execution.name(), input.path(ExpiryWorkflow.TABLE).asText(null),
                input.path(ExpiryWorkflow.KEY).toString(), input.path(ExpiryWorkflow.TTL).asText(null), expireAt,
                described.error());
    }

    private void print(PrintWriter out, List<Row> rows) {
        Instant now = clock.instant();
        String format = "%-22s %-10s %-20s %-12s %-18s %s%n";
        out.printf(format, "EXPIRES AT", "IN", "TABLE", "TTL", "KEY", status == ExecutionStatus.RUNNING ? "EXECUTION" : "EXECUTION / ERROR");
        rows.stream().limit(limit).forEach(row -> out.printf(format,
                row.expireAt() == null ? "?" : row.expireAt().toString(),
                row.expireAt() == null ? "?" : timeLeft(Duration.between(now, row.expireAt())),
                abbreviate(row.table(), 20), row.ttl(), abbreviate(row.key(), 18),
                row.name() + (row.error() == null ? "" : "  " + row.error())));
        int total = consoleTotal >= 0 ? consoleTotal : rows.size();
        out.printf("%d %s expiration(s)%s%n", total, status == ExecutionStatus.RUNNING ? "pending" : status.toString().toLowerCase(),
                total > Math.min(limit, rows.size()) ? ", first " + Math.min(limit, rows.size()) + " shown" : "");
        out.flush();
    }

    static String timeLeft(Duration left) {
        if (left.isNegative() || left.isZero()) {
            return "due";
        }
        long seconds = left.toSeconds();
        if (seconds < 60) {
            return String.format("%d.%01ds", seconds, left.toMillisPart() / 100);
        }
        if (seconds < 3600) {
            return String.format("%dm%02ds", seconds / 60, seconds % 60);
        }
        if (seconds < 86_400) {
            return String.format("%dh%02dm", seconds / 3600, seconds % 3600 / 60);
        }
        return String.format("%dd%02dh", seconds / 86_400, seconds % 86_400 / 3600);
    }

    private static String abbreviate(String text, int width) {
        if (text == null) {
            return "-";
        }
        return text.length() <= width ? text : text.substring(0, width - 1) + "…";
    }

    private record Row(String name, String table, String key, String ttl, Instant expireAt, String error) {
    }
}
