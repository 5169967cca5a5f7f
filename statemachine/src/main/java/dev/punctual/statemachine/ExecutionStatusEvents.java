package dev.punctual.statemachine;

import java.time.Duration;
import java.util.List;

/**
 * The events Step Functions publishes to EventBridge's default bus when a Standard execution changes
 * status (source {@value #SOURCE}, detail type {@value #DETAIL_TYPE}), and the rule windowed mode
 * listens with: a bucket execution that ends {@code FAILED}, {@code TIMED_OUT} or {@code ABORTED} has
 * its successor generation started by the bucket function. The construct's rule, the bucket function
 * that reads the event and the local runtime that publishes and routes it all take the names from here.
 *
 * <p>The detail, as AWS documents it: {@code executionArn}, {@code stateMachineArn}, {@code name},
 * {@code status}, {@code startDate} and {@code stopDate} (epoch milliseconds; {@code null} while
 * running), {@code input} and {@code output} (JSON text; {@code output} only on success),
 * {@code inputDetails}/{@code outputDetails} ({@code {"included": true}} unless the payload was left
 * out for size), {@code error} and {@code cause} for an unsuccessful end, and {@code redriveCount}.
 * AWS delivers these events on a <em>best effort</em> basis.
 */
public final class ExecutionStatusEvents {

    /** The event's {@code source}. */
    public static final String SOURCE = "aws.states";
    /** The event's {@code detail-type}. */
    public static final String DETAIL_TYPE = "Step Functions Execution Status Change";

    /** Detail field: the execution's ARN (also the event's only resource). */
    public static final String EXECUTION_ARN = "executionArn";
    /** Detail field: the state machine's ARN. */
    public static final String STATE_MACHINE_ARN = "stateMachineArn";
    /** Detail field: the execution's name. */
    public static final String NAME = "name";
    /** Detail field: {@code RUNNING}, {@code SUCCEEDED}, {@code FAILED}, {@code TIMED_OUT} or {@code ABORTED}. */
    public static final String STATUS = "status";
    /** Detail field: when the execution started, epoch milliseconds. */
    public static final String START_DATE = "startDate";
    /** Detail field: when it stopped, epoch milliseconds; {@code null} while running. */
    public static final String STOP_DATE = "stopDate";
    /** Detail field: the execution's input, as JSON text. */
    public static final String INPUT = "input";
    /** Detail field: its output, as JSON text; {@code null} unless it succeeded. */
    public static final String OUTPUT = "output";
    /** Detail field: the error an unsuccessful execution ended with. */
    public static final String ERROR = "error";
    /** Detail field: the cause an unsuccessful execution ended with. */
    public static final String CAUSE = "cause";

    /** The {@code source} of an EventBridge scheduled rule's events. */
    public static final String SCHEDULED_SOURCE = "aws.events";
    /** The {@code detail-type} of an EventBridge scheduled rule's events. */
    public static final String SCHEDULED_DETAIL_TYPE = "Scheduled Event";

    /**
     * How often windowed mode's sweep looks for bucket executions that ended unfinished and were not
     * replaced: the backstop for a status-change event that was not delivered (Step Functions delivers
     * them on a best-effort basis) or whose delivery failed. A bucket nobody else comes back to is then
     * replaced at most this much (plus a sweep's run) after its event was lost.
     */
    public static final Duration SWEEP_INTERVAL = Duration.ofMinutes(10);
    /**
     * How far back a sweep looks: executions that stopped longer ago than this are left alone (they were
     * replaced or abandoned long since, or nothing reached them for a whole day).
     */
    public static final Duration SWEEP_LOOKBACK = Duration.ofDays(1);

    /** The statuses of an execution that ended without finishing its work. */
    public static final List<String> UNFINISHED = List.of("FAILED", "TIMED_OUT", "ABORTED");

    private ExecutionStatusEvents() {
    }

    /**
     * The pattern of the rule that heals windowed mode's buckets: status changes of
     * {@code stateMachineArn}'s executions to one of the {@link #UNFINISHED} statuses. In EventBridge's
     * syntax, with the fields in a fixed order.
     */
    public static String unfinishedPattern(String stateMachineArn) {
        StringBuilder statuses = new StringBuilder();
        for (String status : UNFINISHED) {
            statuses.append(statuses.isEmpty() ? "" : ",").append('"').append(status).append('"');
        }
        return "{\"source\":[\"" + SOURCE + "\"],\"detail-type\":[\"" + DETAIL_TYPE + "\"],\"detail\":{\""
                + STATE_MACHINE_ARN + "\":[\"" + stateMachineArn + "\"],\"" + STATUS + "\":[" + statuses + "]}}";
    }
}
