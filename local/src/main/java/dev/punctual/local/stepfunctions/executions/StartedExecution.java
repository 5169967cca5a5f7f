package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;

/** What StartExecution answers; a repeated idempotent start answers the original start date. */
public record StartedExecution(String executionArn, Instant startDate) {

    /**
     * The answer as the Step Functions API writes it (AWS JSON 1.0): {@code executionArn}, and
     * {@code startDate} in epoch seconds with milliseconds.
     */
    public ObjectNode response() {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("executionArn", executionArn);
        out.put("startDate", BigDecimal.valueOf(startDate.toEpochMilli(), 3));
        return out;
    }
}
