package dev.punctual.local.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.events.EventStore;
import dev.punctual.local.modes.PendingWork;
import dev.punctual.local.modes.WindowedParts;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stepfunctions.executions.HistoryEvent;
import dev.punctual.local.stepfunctions.executions.Page;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stream.DeadLetter;
import dev.punctual.local.stream.RedriveResult;
import dev.punctual.local.stream.StreamPollerMetrics;
import dev.punctual.local.stream.WatchedTable;
import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ScheduleIndexTable;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * The console's JSON API ({@code /api/...}), which the pages and the CLI both read. It shows keys and
 * TTLs, never item images, and reads the runtime without changing it, except {@link #redrive}.
 */
final class ConsoleApi implements AutoCloseable {

    /** Pending expirations overdue by more than this count as missed. */
    static final Duration MISSED_AFTER = Duration.ofSeconds(60);
    /** The most rows one page of any listing has. */
    static final int MAX_PAGE = 500;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalRuntime runtime;
    private final Clock clock;
    private final ExpiryRecorder expiries;
    private final SfnClient sfn;
    private final DynamoDbClient dynamoDb;
    /** Pending work, read the way the runtime's mode keeps it. */
    private final PendingWork pending;

    ConsoleApi(LocalRuntime runtime, Clock clock) {
        this.runtime = runtime;
        this.clock = clock;
        this.expiries = new ExpiryRecorder(clock, runtime.options().retention().of(Retained.EXPIRIES));
        runtime.observations().deletions().addListener(expiries);
        runtime.stepFunctionsEngine().addListener(expiries);
        this.sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions());
        this.dynamoDb = LocalClients.dynamoDb(runtime.endpoints().dynamoDb());
        this.pending = runtime.mode().pendingWork(new PendingWork.Sources(runtime.stepFunctionsEngine(), clock, sfn, dynamoDb));
    }

    /** {@code /api/overview}: tables, pending per table, the last minute's expiries, the lag chart, counters. */
    ObjectNode overview() {
        Instant now = clock.instant();
        ObjectNode body = JSON.createObjectNode();
        body.put("now", now.toEpochMilli());
        body.put("mode", runtime.options().mode().label());
        Map<String, Integer> pending = this.pending.countsByTable();
        Map<String, StreamPollerMetrics.Snapshot> streams = runtime.streamPoller().tableMetrics();
        ArrayNode tables = body.putArray("tables");
        for (WatchedTable table : sortedTables()) {
            ObjectNode row = tables.addObject();
            row.put("name", table.tableName());
            row.put("ttlAttribute", table.ttlAttribute());
            row.put("mode", runtime.options().mode().label());
            StreamPollerMetrics.Snapshot stream = streams.get(table.tableName());
            row.put("backlog", stream == null ? 0 : stream.backlog());
            row.put("pending", pending.getOrDefault(table.tableName(), 0));
        }
        body.put("pending", pending.values().stream().mapToInt(Integer::intValue).sum());
        body.put("expiredLastMinute", expiries.expiredInLastMinute());
        ObjectNode counters = body.putObject("counters");
        counters.put("expired", expiries.expired());
        counters.put("early", expiries.early());
        counters.put("missed", this.pending.countDueBefore(now.minus(MISSED_AFTER)));
        counters.put("superseded", expiries.superseded());
        counters.put("failedExecutions", expiries.failedExecutions());
        counters.put("deadLetters", runtime.streamPoller().deadLetters().list().stream().filter(l -> l.redriven().isEmpty()).count());
        ArrayNode lag = body.putArray("lag");
        for (ExpiryRecorder.LagSecond second : expiries.lagBySecond()) {
            lag.addArray().add(second.epochSecond()).add(second.p50()).add(second.p99()).add(second.count());
        }
        return body;
    }

    /**
     * {@code /api/pending}: one page of pending expirations sorted by expiry.
     *
     * @param after where the previous page ended ({@code next} of that page), or {@code null}
     */
    ObjectNode pending(String table, String after, int limit) {
        Instant now = clock.instant();
        ObjectNode body = JSON.createObjectNode();
        body.put("now", now.toEpochMilli());
        body.put("mode", runtime.options().mode().label());
        ArrayNode tables = body.putArray("tables");
        sortedTables().forEach(t -> tables.add(t.tableName()));
        ArrayNode items = body.putArray("items");
        PendingWork.Page page = pending.page(table, after, limit);
        for (PendingWork.Row pendingRow : page.rows()) {
            ObjectNode row = items.addObject();
            row.put("expireAt", pendingRow.expireAt().toEpochMilli());
            row.put("table", pendingRow.table());
            row.put("key", pendingRow.key());
            row.put("ttl", pendingRow.ttl());
            row.put(pendingRow.holderField(), pendingRow.holder());
            row.put("executionArn", pendingRow.executionArn());
        }
        body.put("total", page.total());
        if (page.next() != null) {
            body.put("next", page.next());
        }
        return body;
    }

    /** {@code /api/expired}: the most recent expiries, newest first. */
    ObjectNode expired(String table, int limit) {
        ObjectNode body = JSON.createObjectNode();
        body.put("now", clock.millis());
        ArrayNode items = body.putArray("items");
        for (ExpiryRecorder.Expiry expiry : expiries.recent(table, limit)) {
            ObjectNode row = items.addObject();
            row.put("table", expiry.table());
            row.put("key", expiry.key());
            row.put("ttl", expiry.ttl());
            row.put("at", expiry.at() == null ? null : expiry.at().toEpochMilli());
            if (expiry.lagMillis() == null) {
                row.putNull("lagMs");
            } else {
                row.put("lagMs", expiry.lagMillis());
            }
            row.put("outcome", expiry.outcome().name());
            row.put("executionArn", expiry.execution());
            row.put("error", expiry.error());
            row.put("cause", expiry.cause());
        }
        return body;
    }

    /**
     * {@code /api/events}: the newest {@code ItemExpired} events the runtime's EventBridge endpoint
     * received, newest first, as their detail says them (key and TTL, never an old image).
     */
    ObjectNode events(String table, int limit) {
        ObjectNode body = JSON.createObjectNode();
        body.put("now", clock.millis());
        body.put("publishing", runtime.options().expiryEvents());
        body.put("endpoint", runtime.endpoints().events().toString());
        ArrayNode items = body.putArray("items");
        List<EventStore.StoredEvent> events = runtime.observations().events().all();
        for (int i = events.size() - 1; i >= 0 && items.size() < limit; i--) {
            EventStore.StoredEvent event = events.get(i);
            JsonNode detail = event.event().path("detail");
            if (!ExpiryEvents.SOURCE.equals(event.event().path("source").asText()) || (table != null && !table.equals(event.table()))) {
                continue;
            }
            ObjectNode row = items.addObject();
            row.put("id", detail.path(ExpiryEvents.ID).asText());
            row.put("table", event.table());
            row.put("key", detail.path(ExpiryEvents.KEY).toString());
            row.put("ttl", detail.path(ExpiryEvents.TTL).asText());
            row.put("expiredBy", detail.path(ExpiryEvents.EXPIRED_BY).asText());
            row.put("deletedAt", detail.path(ExpiryEvents.DELETED_AT).asText());
            if (detail.has(ExpiryEvents.LAG_MS)) {
                row.put("lagMs", detail.get(ExpiryEvents.LAG_MS).asLong());
            } else {
                row.putNull("lagMs");
            }
            row.put("oldImage", detail.has(ExpiryEvents.OLD_IMAGE) ? "included"
                    : detail.has(ExpiryEvents.OLD_IMAGE_OMITTED) ? "omitted: " + detail.get(ExpiryEvents.OLD_IMAGE_OMITTED).asText() : "");
        }
        return body;
    }

    /** {@code /api/executions}: executions of one of Punctual's state machines, newest first. */
    ObjectNode executions(String stateMachine, String status, String next, int limit) {
        String arn = stateMachineArn(stateMachine);
        ExecutionStatus filter = status == null || status.isEmpty() || "ALL".equals(status) ? null : parseStatus(status);
        Page<ExecutionSummary> page = runtime.stepFunctionsEngine().listExecutions(arn, filter, limit, emptyToNull(next));
        ObjectNode body = JSON.createObjectNode();
        body.put("now", clock.millis());
        body.put("stateMachineArn", arn);
        ArrayNode machines = body.putArray("stateMachines");
        stateMachines().forEach(machines::add);
        ArrayNode items = body.putArray("items");
        for (ExecutionSummary summary : page.items()) {
            ObjectNode row = items.addObject();
            row.put("executionArn", summary.executionArn());
            row.put("name", summary.name());
            row.put("status", summary.status().name());
            row.put("startDate", summary.startDate().toEpochMilli());
            row.put("stopDate", summary.stopDate() == null ? null : summary.stopDate().toEpochMilli());
        }
        page.next().ifPresent(token -> body.put("next", token));
        return body;
    }

    /** Whether {@code executionArn} names an execution the engine knows. */
    boolean executionExists(String executionArn) {
        return describe(executionArn).isPresent();
    }

    /** {@code /api/execution?arn=}: one execution, its history, its state machine's definition and where it is. */
    Optional<ObjectNode> execution(String executionArn) {
        Optional<ExecutionDescription> found = describe(executionArn);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        ExecutionDescription execution = found.get();
        StepFunctionsEngine engine = runtime.stepFunctionsEngine();
        ObjectNode body = JSON.createObjectNode();
        body.put("now", clock.millis());
        body.put("executionArn", execution.executionArn());
        body.put("stateMachineArn", execution.stateMachineArn());
        body.put("name", execution.name());
        body.put("status", execution.status().name());
        body.put("startDate", execution.startDate().toEpochMilli());
        body.put("stopDate", execution.stopDate() == null ? null : execution.stopDate().toEpochMilli());
        body.put("input", execution.input());
        body.put("output", execution.output());
        body.put("error", execution.error());
        body.put("cause", execution.cause());
        body.set("definition", parse(engine.describeStateMachine(execution.stateMachineArn()).definition()));
        ArrayNode events = body.putArray("events");
        String current = null;
        String lastEntered = null;
        String token = null;
        do {
            Page<HistoryEvent> page = engine.getExecutionHistory(execution.executionArn(), 1000, token, false);
            for (HistoryEvent event : page.items()) {
                ObjectNode row = events.addObject();
                row.put("id", event.id());
                row.put("previousEventId", event.previousEventId());
                row.put("type", event.type());
                row.put("timestamp", event.timestamp().toEpochMilli());
                row.set("details", event.details());
                String state = event.details() == null ? null : event.details().path("name").asText(null);
                if (event.type().endsWith("StateEntered")) {
                    current = state;
                    lastEntered = state;
                } else if (event.type().endsWith("StateExited") && state != null && state.equals(current)) {
                    current = null;
                }
            }
            token = page.nextToken();
        } while (token != null);
        BucketRunners.describe(runtime.stepFunctionsEngine(), execution.name(), body);
        ObjectNode marked = body.putObject("marked");
        if (execution.status() == ExecutionStatus.RUNNING) {
            marked.put("state", current);
            marked.put("as", "current");
        } else if (execution.status() == ExecutionStatus.FAILED || execution.status() == ExecutionStatus.TIMED_OUT) {
            marked.put("state", current != null ? current : lastEntered);
            marked.put("as", "failed");
        }
        return Optional.of(body);
    }

    /** {@code /api/dead-letters}: every dead-lettered batch, newest first. */
    ObjectNode deadLetters() {
        ObjectNode body = JSON.createObjectNode();
        body.put("now", clock.millis());
        ArrayNode items = body.putArray("items");
        List<DeadLetter> letters = new ArrayList<>(runtime.streamPoller().deadLetters().list());
        letters.sort((a, b) -> b.timestamp().compareTo(a.timestamp()));
        for (DeadLetter letter : letters) {
            ObjectNode row = items.addObject();
            row.put("id", letter.id());
            row.put("table", letter.table().tableName());
            row.put("condition", letter.condition());
            row.put("timestamp", letter.timestamp().toEpochMilli());
            row.put("records", letter.records().size());
            row.put("redrivenAt", letter.redriven().map(Instant::toEpochMilli).orElse(null));
        }
        return body;
    }

    /** Whether a dead letter with this id exists. */
    boolean deadLetterExists(String id) {
        return runtime.streamPoller().deadLetters().find(id).isPresent();
    }

    /** {@code POST /api/dead-letters/<id>/redrive}: hands the batch to the handler again. */
    ObjectNode redrive(String id) {
        RedriveResult result = runtime.streamPoller().deadLetters().redrive(id);
        ObjectNode body = JSON.createObjectNode();
        body.put("id", result.id());
        body.put("succeeded", result.succeeded());
        ArrayNode failed = body.putArray("failedSequenceNumbers");
        result.failedSequenceNumbers().forEach(failed::add);
        body.put("error", result.error());
        return body;
    }

    private List<WatchedTable> sortedTables() {
        List<WatchedTable> tables = new ArrayList<>(runtime.streamPoller().watchedTables());
        tables.removeIf(t -> t.tableName().equals(ScheduleIndexTable.LOCAL_TABLE_NAME));
        tables.sort((a, b) -> a.tableName().compareTo(b.tableName()));
        return tables;
    }

    private Optional<ExecutionDescription> describe(String executionArn) {
        if (executionArn == null || executionArn.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(runtime.stepFunctionsEngine().describeExecution(executionArn));
        } catch (StepFunctionsException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private String stateMachineArn(String requested) {
        if (requested == null || requested.isEmpty()) {
            return runtime.mode().stateMachineArn();
        }
        List<String> machines = stateMachines();
        if (machines.contains(requested)) {
            return requested;
        }
        throw new IllegalArgumentException("stateMachine must be one of Punctual's state machines: "
                + String.join(" or ", machines));
    }

    /** The state machines whose executions the console lists: expire-item, deployed in every mode, and windowed mode's expire-bucket. */
    private List<String> stateMachines() {
        List<String> machines = new ArrayList<>(List.of(LocalDefaults.stateMachineArn()));
        runtime.mode().windowed().map(WindowedParts::bucketStateMachineArn).ifPresent(machines::add);
        return machines;
    }

    private static ExecutionStatus parseStatus(String status) {
        try {
            return ExecutionStatus.valueOf(status);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("status must be RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED or ALL, got '"
                    + status + "'");
        }
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    @Override
    public void close() {
        runtime.observations().deletions().removeListener(expiries);
        runtime.stepFunctionsEngine().removeListener(expiries);
        pending.close();
        sfn.close();
        dynamoDb.close();
    }
}
