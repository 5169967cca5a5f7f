package dev.punctual.local.stepfunctions.executions;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the engine's executions log, as a state machine's {@code loggingConfiguration} sends them to
 * CloudWatch Logs in AWS: one JSON line per logged event ({@code id}, {@code type}, {@code details},
 * {@code previous_event_id}, {@code event_timestamp}, {@code execution_arn}), counted in the bytes
 * CloudWatch Logs bills its ingestion by, the latest lines kept for the console.
 */
public final class ExecutionLog {

    /** Lines kept for the console: the log group itself is CloudWatch Logs' to keep, not the engine's. */
    static final int KEPT_LINES = 1_000;

    private final LongAdder bytes = new LongAdder();
    private final LongAdder lines = new LongAdder();
    private final Deque<Line> latest = new ArrayDeque<>();

    /** One logged event: the state machine whose log group it went to, and the line. */
    public record Line(String stateMachineArn, String json) {
    }

    void append(String stateMachineArn, String json) {
        bytes.add(json.getBytes(StandardCharsets.UTF_8).length);
        lines.increment();
        synchronized (latest) {
            latest.addLast(new Line(stateMachineArn, json));
            if (latest.size() > KEPT_LINES) {
                latest.removeFirst();
            }
        }
    }

    /** Bytes logged since the engine started: what CloudWatch Logs would bill as ingested. */
    public long bytes() {
        return bytes.sum();
    }

    /** Lines logged since the engine started. */
    public long lines() {
        return lines.sum();
    }

    /** The latest lines, oldest first (at most {@link #KEPT_LINES}). */
    public List<Line> latest() {
        synchronized (latest) {
            return List.copyOf(latest);
        }
    }
}
