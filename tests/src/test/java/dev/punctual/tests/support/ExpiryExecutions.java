package dev.punctual.tests.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.TtlValue;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stepfunctions.executions.HistoryEvent;
import dev.punctual.local.stepfunctions.executions.Page;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.names.ItemExecutionName;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The expire-item executions of a running {@link LocalRuntime}, looked up the way the handler names
 * them: by table, item id and TTL. Reads the in-process engine, which is what the Step Functions API
 * serves.
 */
public final class ExpiryExecutions {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAGE = 1000;

    private final StepFunctionsEngine engine;
    private final RuntimeProgress progress;
    private final String stateMachineArn;

    public ExpiryExecutions(LocalRuntime runtime) {
        this.engine = runtime.stepFunctionsEngine();
        this.progress = RuntimeProgress.of(runtime);
        this.stateMachineArn = LocalDefaults.stateMachineArn();
    }

    /** The name the handler gives the execution for item {@code id} of {@code table} with a Number TTL of {@code ttl}. */
    public static String nameOf(String table, String id, String ttl) {
        TtlValue.Check check = TtlValue.check(AttributeText.n(ttl), ExpiryTable.TTL, Instant.now());
        if (!(check instanceof TtlValue.Valid valid)) {
            throw new IllegalArgumentException("TTL " + ttl + " is not one the handler schedules: " + check);
        }
        return ItemExecutionName.first(table, ItemKey.of(Map.of(ExpiryTable.KEY, AttributeText.s(id))), valid.ttl()).toString();
    }

    /** The ARN of the execution for item {@code id} with TTL {@code epochSeconds}. */
    public String arnOf(ExpiryTable table, String id, long epochSeconds) {
        return Arns.execution(stateMachineArn, nameOf(table.name(), id, Long.toString(epochSeconds)));
    }

    /** The ARN of the execution named {@code name}. */
    public String arn(String name) {
        return Arns.execution(stateMachineArn, name);
    }

    /** The execution, or empty while it has not been started. */
    public Optional<ExecutionDescription> find(String executionArn) {
        try {
            return Optional.of(engine.describeExecution(executionArn));
        } catch (StepFunctionsException notStarted) {
            return Optional.empty();
        }
    }

    /**
     * Waits until the execution exists, i.e. the stream record reached the handler and it started, for as
     * long as the runtime keeps working ({@link RuntimeProgress}).
     */
    public ExecutionDescription awaitStarted(String executionArn) {
        return Await.valueWhileProgressing("execution " + executionArn + " to start", RuntimeProgress.STALL, progress,
                () -> find(executionArn));
    }

    /**
     * Waits until the execution, which has nothing left to wait for (its item deleted, or a stop asked for),
     * has closed, for as long as the runtime keeps working; returns its final description.
     */
    public ExecutionDescription awaitClosed(String executionArn) {
        return Await.valueWhileProgressing("execution " + executionArn + " to close", RuntimeProgress.STALL, progress,
                () -> find(executionArn).filter(e -> e.status().isClosed()));
    }

    /** The outcome a succeeded execution reports ({@code Expired}, {@code Superseded}, ...). */
    public static String outcome(ExecutionDescription execution) {
        if (execution.status() != ExecutionStatus.SUCCEEDED) {
            throw new AssertionError("execution " + execution.name() + " is " + execution.status() + ", not SUCCEEDED");
        }
        return ExpiryWorkflow.outcomeOf(execution.output()).orElse(null);
    }

    /** When the execution's conditional delete succeeded: its {@code TaskSucceeded} event, if any. */
    public Optional<Instant> deleteSucceededAt(String executionArn) {
        return history(executionArn).stream().filter(e -> e.type().equals("TaskSucceeded"))
                .map(HistoryEvent::timestamp).findFirst();
    }

    /** The execution's history, oldest first. */
    public List<HistoryEvent> history(String executionArn) {
        return engine.getExecutionHistory(executionArn, PAGE, null, false).items();
    }

    /** Every execution of the state machine whose input names {@code table}, newest first. */
    public List<ExecutionDescription> forTable(String table) {
        List<ExecutionDescription> found = new ArrayList<>();
        String token = null;
        do {
            Page<ExecutionSummary> page = engine.listExecutions(stateMachineArn, null, PAGE, token);
            for (ExecutionSummary summary : page.items()) {
                ExecutionDescription execution = engine.describeExecution(summary.executionArn());
                if (table.equals(read(execution.input()).path(ExpiryWorkflow.TABLE).asText(null))) {
                    found.add(execution);
                }
            }
            token = page.nextToken();
        } while (token != null);
        return found;
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("execution input or output is not JSON: " + e.getMessage(), e);
        }
    }
}
