package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One event of an execution's history, as GetExecutionHistory reports it.
 *
 * @param id 1-based position in the history
 * @param previousEventId the event before it (0 for the first)
 * @param type AWS's {@code HistoryEventType}, e.g. {@code WaitStateEntered}
 * @param timestamp when it happened
 * @param details the fields of its details object ({@code name}, {@code input}, ...), JSON payloads as strings
 */
public record HistoryEvent(long id, long previousEventId, String type, Instant timestamp, ObjectNode details) {

    /**
     * The member of AWS's {@code HistoryEvent} that carries this event's details, e.g.
     * {@code stateEnteredEventDetails} for every {@code *StateEntered} type.
     */
    public String detailsMemberName() {
        if (type.endsWith("StateEntered")) {
            return "stateEnteredEventDetails";
        }
        if (type.endsWith("StateExited")) {
            return "stateExitedEventDetails";
        }
        return Character.toLowerCase(type.charAt(0)) + type.substring(1) + "EventDetails";
    }
}
