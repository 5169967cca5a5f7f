package dev.punctual.local.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionListener;
import dev.punctual.statemachine.ExecutionStatusEvents;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.UUID;

/**
 * Step Functions' own events, as the engine's executions change status: a
 * {@value ExecutionStatusEvents#DETAIL_TYPE} event from {@value ExecutionStatusEvents#SOURCE} when an
 * execution starts ({@code RUNNING}) and when it ends ({@code SUCCEEDED}, {@code FAILED},
 * {@code TIMED_OUT}, {@code ABORTED}), put on the runtime's bus ({@link EventRules}) in the shape AWS
 * documents: {@code resources} holds the execution ARN; the detail has the ARNs, name, status, start and
 * stop dates in epoch milliseconds, input and output as JSON text with their {@code inputDetails} and
 * {@code outputDetails}, error and cause, and {@code redriveCount}. Only rules see them: unlike
 * {@code PutEvents} entries they are not kept in the {@link EventStore}.
 */
public final class ExecutionStatusPublisher implements ExecutionListener {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final EventRules bus;
    private final String region;
    private final String account;

    public ExecutionStatusPublisher(EventRules bus, String region, String account) {
        this.bus = Objects.requireNonNull(bus, "bus");
        this.region = Objects.requireNonNull(region, "region");
        this.account = Objects.requireNonNull(account, "account");
    }

    @Override
    public void started(ExecutionDescription execution) {
        publish(execution);
    }

    @Override
    public void closed(ExecutionDescription execution) {
        publish(execution);
    }

    /** Puts the event for {@code execution}'s current status on the bus. */
    public void publish(ExecutionDescription execution) {
        if (!bus.isEmpty()) {
            bus.put(event(execution, region, account));
        }
    }

    /** The event Step Functions publishes for {@code execution}'s current status. */
    public static ObjectNode event(ExecutionDescription execution, String region, String account) {
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "0");
        event.put("id", UUID.randomUUID().toString());
        event.put("detail-type", ExecutionStatusEvents.DETAIL_TYPE);
        event.put("source", ExecutionStatusEvents.SOURCE);
        event.put("account", account);
        Instant time = execution.stopDate() != null ? execution.stopDate() : execution.startDate();
        event.put("time", time.truncatedTo(ChronoUnit.SECONDS).toString());
        event.put("region", region);
        event.putArray("resources").add(execution.executionArn());
        ObjectNode detail = event.putObject("detail");
        detail.put(ExecutionStatusEvents.EXECUTION_ARN, execution.executionArn());
        detail.put(ExecutionStatusEvents.STATE_MACHINE_ARN, execution.stateMachineArn());
        detail.put(ExecutionStatusEvents.NAME, execution.name());
        detail.put(ExecutionStatusEvents.STATUS, execution.status().name());
        detail.put(ExecutionStatusEvents.START_DATE, execution.startDate().toEpochMilli());
        putMillis(detail, ExecutionStatusEvents.STOP_DATE, execution.stopDate());
        detail.put(ExecutionStatusEvents.INPUT, execution.input());
        detail.set("inputDetails", included());
        detail.put(ExecutionStatusEvents.OUTPUT, execution.output());
        detail.set("outputDetails", execution.output() == null ? JSON.nullNode() : included());
        detail.put(ExecutionStatusEvents.ERROR, execution.error());
        detail.put(ExecutionStatusEvents.CAUSE, execution.cause());
        detail.put("redriveCount", 0);
        return event;
    }

    private static JsonNode included() {
        return JSON.createObjectNode().put("included", true);
    }

    private static void putMillis(ObjectNode node, String field, Instant instant) {
        if (instant == null) {
            node.putNull(field);
        } else {
            node.put(field, instant.toEpochMilli());
        }
    }
}
