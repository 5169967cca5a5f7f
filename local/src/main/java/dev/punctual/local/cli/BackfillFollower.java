package dev.punctual.local.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.backfill.BackfillCounts;
import dev.punctual.backfill.BackfillRun;
import dev.punctual.backfill.ProgressStore;
import dev.punctual.backfill.SegmentProgress;
import dev.punctual.expiry.Sleeper;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.BackfillWorkflow;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * Starts the backfill workflow for a table and follows it to its end, through any successors it
 * continues as, telling a listener where the run stands (segments done, items scanned, scheduled,
 * deleted at once, skipped) as read from the progress table. {@code punctual backfill} and the
 * backfill benchmark use it; it works the same against AWS.
 */
public final class BackfillFollower {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where the run stands: its segments done of all, and its counts so far. */
    public record Snapshot(String executionArn, Optional<BackfillRun> run, int segmentsDone, BackfillCounts counts) {
    }

    /** How the last execution of the chain ended. */
    public record Ending(String executionArn, ExecutionStatus status, String error, String cause, Snapshot last) {
        /** Whether the run finished: every segment done. */
        public boolean backfilled() {
            return status == ExecutionStatus.SUCCEEDED;
        }
    }

    /** Hears each snapshot. */
    @FunctionalInterface
    public interface Listener {
        void progressed(Snapshot snapshot);
    }

    private final SfnClient sfn;
    private final ProgressStore progress;
    private final String stateMachineArn;
    private final Sleeper sleeper;
    private final Duration pollEvery;

    public BackfillFollower(SfnClient sfn, ProgressStore progress, String stateMachineArn, Sleeper sleeper, Duration pollEvery) {
        this.sfn = Objects.requireNonNull(sfn, "sfn");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.stateMachineArn = Objects.requireNonNull(stateMachineArn, "stateMachineArn");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.pollEvery = Objects.requireNonNull(pollEvery, "pollEvery");
    }

    /** Starts an execution with {@code input} (a JSON object with at least {@code table}); returns its ARN. */
    public String start(Map<String, Object> input) {
        try {
            String json = JSON.writeValueAsString(input);
            return sfn.startExecution(r -> r.stateMachineArn(stateMachineArn).input(json)).executionArn();
        } catch (IOException e) {
            throw new IllegalArgumentException("backfill input not writable as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * Follows {@code executionArn} and its successors until one ends otherwise than by continuing.
     *
     * @throws InterruptedException when interrupted between polls; the workflow goes on without us
     */
    public Ending follow(String table, String executionArn, Listener listener) throws InterruptedException {
        String current = executionArn;
        while (true) {
            String arn = executionArnOf(current);
            DescribeExecutionResponse described = sfn.describeExecution(r -> r.executionArn(arn));
            Snapshot snapshot = snapshot(table, described.executionArn());
            listener.progressed(snapshot);
            if (described.status() == ExecutionStatus.RUNNING) {
                sleeper.sleep(pollEvery);
                continue;
            }
            Optional<String> successor = successor(described);
            if (successor.isPresent()) {
                current = successor.get();
                continue;
            }
            return new Ending(described.executionArn(), described.status(), described.error(), described.cause(), snapshot);
        }
    }

    /** Where the table's run stands now. */
    public Snapshot snapshot(String table, String executionArn) {
        Optional<BackfillRun> run = progress.run(table);
        int done = 0;
        BackfillCounts counts = BackfillCounts.NONE;
        if (run.isPresent()) {
            for (SegmentProgress segment : progress.segments(table)) {
                if (segment.runId().equals(run.get().id())) {
                    counts = counts.plus(segment.counts());
                    done += segment.done() ? 1 : 0;
                }
            }
        }
        return new Snapshot(executionArn, run, done, counts);
    }

    /** The successor a succeeded execution continued as, if it did. */
    private static Optional<String> successor(DescribeExecutionResponse described) {
        if (described.status() != ExecutionStatus.SUCCEEDED || described.output() == null) {
            return Optional.empty();
        }
        try {
            JsonNode output = JSON.readTree(described.output());
            if (BackfillWorkflow.OUTCOME_CONTINUED.equals(output.path(BackfillWorkflow.OUTCOME).asText())) {
                return Optional.of(output.path(BackfillWorkflow.SUCCESSOR).asText());
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** An execution ARN, or the ARN of this state machine's execution of that name. */
    private String executionArnOf(String arnOrName) {
        return arnOrName.startsWith("arn:") ? arnOrName : Arns.execution(stateMachineArn, arnOrName);
    }
}
